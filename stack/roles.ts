// The three roles of the service (worker, API, proxy), each built from configuration and opened
// dependencies. The embedded stack runs all three in one process; the production entry points
// run one each.
import type { Client } from '@temporalio/client';
import type { Config } from '../core/config';
import type { Logger } from '../core/logger';
import type { SecretBox } from '../core/secret-box';
import { createGuardedFetch } from '../activities/oauth/guarded-fetch';
import { createApi } from '../api/app';
import { createAuthenticator } from '../callers/authenticator';
import type { OriginPolicy } from '../callers/request-origin';
import { CallerGate } from '../proxy/caller-gate';
import { ConnectorCommands } from '../api/connector-commands';
import { createMcpProxy, type McpProxy } from '../proxy/mcp-proxy';
import { CallAuditQueue } from '../proxy/call-audit-queue';
import type { CallAuditStore } from '../store/call-audit-store';
import { RouteCache } from '../proxy/route-cache';
import { workflowRoutes } from '../proxy/workflow-routes';
import { createWorkloadActivities } from '../activities/workloads/activities';
import { createWorkloadRuntime } from '../activities/workloads/create-runtime';
import { startExpirySweeper } from './expiry-sweeper';
import { startReconciler } from './reconciler';
import { registerConnectorStates } from '../core/metrics';
import { sdkMetrics, type ProcessMetrics } from './metrics';
import { temporalCheck, type Mongo } from './services';
import type { Tracing } from './tracing';
import { createWorker } from './worker-runtime';

export interface RoleDeps {
  config: Config;
  logger: Logger;
  secrets: SecretBox;
  /** The process's series; absent in tests that build a role alone. */
  metrics?: ProcessMetrics;
  /** The process's traces; null or absent: off. */
  tracing?: Tracing | null;
}

const policyOf = (config: Config) => ({ blockPrivateNetworks: config.blockPrivateNetworks, allowedPrivateNetworks: config.allowedPrivateNetworks });

/** The caller check of the API and the proxy; the identity provider is reached through the address guard. */
export function authenticatorOf(config: Config) {
  return createAuthenticator(config.callers, createGuardedFetch(policyOf(config), { timeoutMs: 5_000 }));
}

/** The Origin and Host rules every path of the HTTP server applies. */
export function originPolicyOf(config: Config): OriginPolicy {
  return { baseUrl: config.baseUrl, allowedOrigins: config.callers.allowedOrigins, authEnabled: config.callers.enabled };
}

export async function startWorkerRole(deps: RoleDeps & { mongo: Mongo; temporalAddress: string }) {
  const { config } = deps;
  const runtime = createWorkloadRuntime(config.stdio, deps.logger);
  const isConnected = async (id: string) => (await deps.mongo.store.get(id))?.state === 'connected';
  const reconciler = startReconciler(runtime, isConnected, config.stdio.kube.reconcileIntervalMs, deps.logger);
  const sweeper = startExpirySweeper(deps.mongo, deps.logger);
  const { worker, connection, sdkMetricsUrl } = await createWorker({
    address: deps.temporalAddress,
    access: config.temporal.access,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    logger: deps.logger,
    tracing: deps.tracing,
    activities: {
      store: deps.mongo.store,
      oauthStore: deps.mongo.oauthStore,
      secrets: deps.secrets,
      // The configured connect timeout bounds every outbound request, not a fixed default.
      fetch: createGuardedFetch(policyOf(config), { timeoutMs: config.connectTimeoutMs }),
      logger: deps.logger,
      addressPolicy: policyOf(config),
      connectTimeoutMs: config.connectTimeoutMs,
      eventsRetentionDays: config.eventsRetentionDays,
      baseUrl: config.baseUrl,
      authTimeoutSeconds: config.authTimeoutSeconds,
      // Connectors name their preset; its credentials and env values are read here, never from history.
      presets: config.presets,
      metrics: deps.metrics,
      workloads: createWorkloadActivities({ runtime, readinessTimeoutMs: config.stdio.readyTimeoutMs, secrets: deps.secrets, presets: config.presets, metrics: deps.metrics }),
    },
  });
  deps.metrics?.extras.push(sdkMetrics(sdkMetricsUrl));
  const running = worker.run();
  return {
    running,
    /** For the worker's /readyz: polling Temporal's task queue. */
    isRunning: () => worker.getState() === 'RUNNING',
    async stop() {
      reconciler.stop();
      await sweeper.stop();
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await connection.close();
      await runtime.close();
    },
  };
}

/** The REST API and a `close` for the connection its readiness check keeps. */
/** `onChanged` hears of every connector the API has just changed (a proxy in the same process). */
/** Connectors by state are counted here, in the process that serves the projection (not the worker's too, which would count them twice). */
export function buildApi(deps: RoleDeps & { mongo: Mongo; temporal: Client; temporalAddress: string; onChanged?: (connectorId: string) => void }) {
  if (deps.metrics) registerConnectorStates(deps.metrics, () => deps.mongo.store.countByState());
  const temporalReady = temporalCheck(deps.temporalAddress, deps.config.temporal.access);
  const { config } = deps;
  const commands = new ConnectorCommands({
    temporal: deps.temporal,
    taskQueue: config.temporal.taskQueue,
    secrets: deps.secrets,
    onChanged: deps.onChanged,
    settings: {
      historyLimit: config.historyLimit,
      authTimeoutSeconds: config.authTimeoutSeconds,
      refreshSkewSeconds: config.refreshSkewSeconds,
      connectTimeoutMs: config.connectTimeoutMs,
      stdioReadyTimeoutMs: config.stdio.readyTimeoutMs,
    },
  });
  const api = createApi({
    commands,
    store: deps.mongo.store,
    oauthStore: deps.mongo.oauthStore,
    callStore: deps.mongo.callStore,
    temporal: deps.temporal,
    secrets: deps.secrets,
    allowedRedirectOrigins: config.allowedRedirectOrigins,
    presets: config.presets,
    addressPolicy: policyOf(config),
    baseUrl: config.baseUrl,
    bodyLimit: config.bodyLimit,
    readiness: { temporal: temporalReady, database: () => deps.mongo.store.ping() },
    logger: deps.logger,
    authenticator: authenticatorOf(config),
    issuer: config.callers.jwt?.issuer ?? null,
    maxConnectorsPerOwner: config.callers.maxConnectorsPerOwner,
  });
  return { api, close: temporalReady.close };
}

/** The MCP proxy; with `callStore`, each call is audited there through a bounded queue (closed with the proxy). */
export function buildProxy(deps: RoleDeps & { temporal: Client; callStore?: CallAuditStore }): McpProxy & { stop(): Promise<void> } {
  const routes = new RouteCache(workflowRoutes(deps.temporal, deps.secrets), {
    ttlMs: deps.config.routeCacheTtlMs, loadTimeoutMs: deps.config.routeLoadTimeoutMs,
  });
  const callers = new CallerGate({
    authenticator: authenticatorOf(deps.config), baseUrl: deps.config.baseUrl, maxStreamsPerOwner: deps.config.callers.maxStreamsPerOwner,
  });
  const { callStore } = deps;
  const audit = callStore && new CallAuditQueue({
    write: (entries) => callStore.insert(entries), capacity: deps.config.callAudit.queueCapacity, logger: deps.logger, metrics: deps.metrics,
  });
  const proxy = createMcpProxy({ routes, callers, policy: policyOf(deps.config), logger: deps.logger, metrics: deps.metrics, tracer: deps.tracing?.tracer, audit });
  return {
    ...proxy,
    /** Closes the proxy and writes the calls still queued (before the database closes). */
    async stop() {
      proxy.close();
      await audit?.close();
    },
  };
}
