// The connector workflow alone, on a real Temporal dev server, with stub activities that record
// their calls and answer as each test says. Temporal's time-skipping test server is a Java-built
// binary that @temporalio/testing downloads at run time; it cannot be fetched or built here (see
// docs/development.md, "Tests"), so timers run in real time and the tests keep them to a second or two
// through the workflow's own settings and the lifetimes the stubs hand out.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, WithStartWorkflowOperation, type WorkflowHandle } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { AuditEvent, ConnectorRecord } from '../../../contract/connector-record';
import { createLogger } from '../../../platform/logger';
import { FAILURE } from '../../../contract/failures';
import { startTemporalDevServer, type TemporalDevServer } from '../../../stack/servers/temporal-dev-server';
import type { connectorWorkflow } from '../../../workflows/connector-workflow';
import { connectorWorkflowId, createdUpdate, type ConnectorInit } from '../../../workflows/messages';
import type { createActivities } from '../../../activities';
import { bundleWorkflows } from '../../../service/bundle-workflows';

type Activities = ReturnType<typeof createActivities>;
export type StubActivities = { [K in keyof Activities]: (...args: Parameters<Activities[K]>) => ReturnType<Activities[K]> };

export interface Call { name: string; input: unknown; at: number }

/** Stub behaviour a test may replace; every call is recorded in `calls` first. */
export class Stubs {
  calls: Call[] = [];
  records = new Map<string, ConnectorRecord>();
  events = new Map<string, AuditEvent[]>();
  removed = new Set<string>();
  behaviour: Partial<StubActivities> = {};

  called(name: string): Call[] {
    return this.calls.filter((c) => c.name === name);
  }

  activities(): StubActivities {
    const defaults: StubActivities = {
      recordTransition: async ({ record, events }) => {
        const known = this.records.get(record.id);
        if (!known || known.version < record.version) this.records.set(record.id, record);
        const list = this.events.get(record.id) ?? [];
        for (const e of events) if (!list.some((k) => k.seq === e.seq)) list.push(e);
        this.events.set(record.id, list.sort((a, b) => a.seq - b.seq));
      },
      removeRecord: async ({ connectorId }) => {
        this.removed.add(connectorId);
      },
      probeServer: async () => ({ serverName: 'stub', protocolVersion: '2025-06-18' }),
      oauthProbe: async () => ({ kind: 'challenge', challenge: null }),
      oauthDiscover: async () => ({ authorizationServer: OAUTH_CONTEXT.authorizationServer, resource: OAUTH_CONTEXT.resource, challengeScope: null, resourceScopes: null }),
      oauthIdentifyClient: async () => ({ client: OAUTH_CONTEXT.client, authorizationServerChanged: null }),
      oauthAuthorize: async () => authorizeAnswer(`state-${randomUUID()}`, 60_000),
      oauthComplete: async () => tokens(3_600_000),
      oauthRefresh: async () => tokens(3_600_000),
      oauthRevoke: async () => undefined,
      oauthClientCredentials: async () => ({ context: { ...OAUTH_CONTEXT, grant: 'client_credentials' as const }, tokens: tokens(3_600_000, false) }),
      oauthRenewClientCredentials: async () => tokens(3_600_000, false),
      // The tasks the service owns are not the connector workflow's: its tests never reach these.
      callToolRound: async () => { throw new Error('no tool calls in connector workflow tests'); },
      sealTaskError: async () => { throw new Error('no tool calls in connector workflow tests'); },
      recordTask: async () => { throw new Error('no tool calls in connector workflow tests'); },
      forgetTask: async () => { throw new Error('no tool calls in connector workflow tests'); },
      oauthEnterpriseManaged: async () => ({ context: { ...OAUTH_CONTEXT, grant: 'enterprise_managed' as const }, tokens: tokens(3_600_000, false) }),
      oauthRenewEnterpriseManaged: async () => tokens(3_600_000, false),
      oauthWorkloadIdentity: async () => ({ context: { ...OAUTH_CONTEXT, grant: 'workload_identity' as const }, tokens: tokens(3_600_000, false) }),
      oauthRenewWorkloadIdentity: async () => tokens(3_600_000, false),
      startWorkload: async ({ connectorId }) => ({ target: `http://127.0.0.1:1/${connectorId}`, gatewaySecret: `sealed-gateway-${connectorId}` as never }),
      // Runs until cancelled, as a watch of a live workload does.
      watchWorkload: () => Context.current().cancelled as never,
      removeWorkload: async () => undefined,
    } as StubActivities;
    return Object.fromEntries(Object.entries(defaults).map(([name, fn]) => [name, async (input: unknown) => {
      this.calls.push({ name, input, at: Date.now() });
      const chosen = (this.behaviour as Record<string, (i: unknown) => Promise<unknown>>)[name] ?? (fn as (i: unknown) => Promise<unknown>);
      return chosen(input);
    }])) as unknown as StubActivities;
  }
}

const OAUTH_CONTEXT = {
  authorizationServer: { issuer: 'https://as.invalid', authorization_endpoint: 'https://as.invalid/authorize', token_endpoint: 'https://as.invalid/token' },
  client: { clientId: 'stub-client', clientSecret: null, authMethod: 'none' as const, source: 'given' as const },
  resource: 'https://mcp.invalid/mcp', redirectUri: 'http://127.0.0.1:1/callback', scope: null,
};

/** What the last step of an authorization's beginning (oauthAuthorize) answers. */
export function authorizeAnswer(stateHash: string, lifetimeMs: number) {
  return {
    authorizationUrl: 'https://as.invalid/authorize?state=opaque',
    expiresAt: new Date(Date.now() + lifetimeMs).toISOString(),
    pending: { stateHash, state: 'sealed-state', codeVerifier: 'sealed-verifier', redirectUrl: null, context: OAUTH_CONTEXT },
  } as never;
}

let tokenCounter = 0;
export function tokens(lifetimeMs: number | null, refresh = true) {
  tokenCounter += 1;
  return {
    accessToken: `sealed-access-${tokenCounter}`, refreshToken: refresh ? `sealed-refresh-${tokenCounter}` : null,
    expiresAt: lifetimeMs === null ? null : new Date(Date.now() + lifetimeMs).toISOString(), scope: null,
  } as never;
}

export const transientFailure = () => ApplicationFailure.create({ type: FAILURE.transient, message: 'the server could not be reached', nonRetryable: false });

export interface Harness {
  server: TemporalDevServer;
  client: Client;
  stubs: Stubs;
  worker: Worker;
  running: Promise<void>;
  dataDir: string;
  /** Where the worker polls: for tests that start workflows of other types. */
  taskQueue: string;
  stop(): Promise<void>;
  start(settings?: Partial<ConnectorInit['settings']>, init?: Partial<ConnectorInit>): Promise<WorkflowHandle<typeof connectorWorkflow>>;
}

let runtimeInstalled = false;

export async function startHarness(): Promise<Harness> {
  if (!runtimeInstalled) {
    // The stubs fail and get cancelled on purpose; the SDK's warnings about it are noise here.
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
    runtimeInstalled = true;
  }
  const log = createLogger('workflow-tests', process.env.LOG_LEVEL ?? 'silent');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'workflow-tests-'));
  const server = await startTemporalDevServer({ dataDir, headless: true, log });
  const taskQueue = `workflow-tests-${randomUUID()}`;
  const stubs = new Stubs();
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const worker = await Worker.create({
    connection: nativeConnection, taskQueue, activities: stubs.activities(),
    // The bundle as the worker ships it (its preloaded sandbox settings included), without traces.
    workflowBundle: { code: await bundleWorkflows(false) },
    nonStickyToStickyPollRatio: 1,
    shutdownGraceTime: '1s',
    shutdownForceTime: '5s',
  });
  const running = worker.run();
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  return {
    server, client, stubs, worker, running, dataDir, taskQueue,
    async start(settings = {}, init = {}) {
      const id = randomUUID();
      const fullInit: ConnectorInit = {
        id, url: 'https://mcp.invalid/mcp', metadata: {}, preset: null, presetClient: false, createdBy: 'tester', createdByName: 'tester', clientId: null, clientSecret: null,
        settings: { historyLimit: 10_000, authTimeoutSeconds: 600, connectTimeoutMs: 5_000, stdioReadyTimeoutMs: 5_000, refreshSkewSeconds: 60, minRefreshIntervalSeconds: 0, ...settings },
        ...init,
      };
      const start = new WithStartWorkflowOperation<typeof connectorWorkflow>('connectorWorkflow', {
        workflowId: connectorWorkflowId(id), taskQueue, args: [{ init: fullInit }], workflowIdConflictPolicy: 'USE_EXISTING',
      });
      await client.workflow.executeUpdateWithStart(createdUpdate, { startWorkflowOperation: start });
      return start.workflowHandle();
    },
    async stop() {
      worker.shutdown();
      await running.catch(() => undefined);
      await nativeConnection.close();
      await client.connection.close();
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns a value; the workflow's own timers decide when that is. */
export async function until<T>(check: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
