// The record never gets ahead of Temporal. Rounds of random traffic (create, connect with a
// token, disconnect, delete, from several callers at once) are cut by a SIGKILL of the whole
// stack at a random moment; after each restart, for every connector workflow: the record equals
// the workflow's own view within a few seconds, the audit trail is exactly the transitions the
// workflow handed to its projection writes in history (in order, no gap, no phantom), and
// `created_at` is the first audit event's time. The moments are drawn at random, many times:
// not points chosen in advance. A second test kills the worker alone, in the production split
// (API and worker as separate processes), while the API goes on taking calls.
import type { ConnectorRecord } from '../../core/connector-record';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import crypto from 'node:crypto';
import { createLogger } from '../../core/logger';
import { startFerretDb } from '../../stack/servers/ferretdb-server';
import { freePort } from '../../stack/servers/free-port';
import { startTemporalDevServer } from '../../stack/servers/temporal-dev-server';
import { viewQuery } from '../../workflows/messages';
import { startStackProcess, type StackProcess } from '../helpers/stack-process';
import { eventually, type ApiCall } from '../helpers/test-stack';
import { startTokenMcpServer } from '../fixtures/token-mcp-server';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 4);
const TOKEN = 'crash-consistency-token-3b9d';

interface AuditEvent { seq: number; time: string; actor: string; from: string | null; to: string; reason: string | null }

test.serial(`${ROUNDS} rounds of random traffic cut by SIGKILL: record and audit trail follow the workflow`, async (t) => {
  const upstream = await startTokenMcpServer({ token: TOKEN });
  t.teardown(() => upstream.close());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-crash-consistency-'));
  const logFile = path.join(dataDir, 'logs', 'stack.log');
  const port = await freePort();
  const env = { DATA_DIR: dataDir, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'info' };
  const ids = new Set<string>();
  let checked = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const stack = await startStackProcess({ env, logFile });
    const cutAfterMs = 200 + Math.floor(Math.random() * 2500);
    t.log(`round ${round}: traffic cut by SIGKILL after ${cutAfterMs} ms`);
    const traffic = randomTraffic(stack.api, upstream.url, ids, Date.now() + cutAfterMs + 5_000);
    await new Promise((r) => setTimeout(r, cutAfterMs));
    await stack.kill();
    await traffic;

    const readyBefore = readyLines(logFile).length;
    const restarted = await startStackProcess({ env, logFile });
    const temporal = await temporalClient(logFile, readyBefore);
    try {
      const count = await checkEveryConnector(restarted.api, temporal, ids);
      t.log(`round ${round}: ${count} connectors consistent after the restart`);
      checked += count;
    } finally {
      await temporal.connection.close();
      await restarted.stop();
    }
  }
  t.true(checked >= ROUNDS, `checked ${checked} connectors over ${ROUNDS} rounds`);
});

test.serial(`${ROUNDS} rounds with the worker alone SIGKILLed while the API takes calls: record and audit trail follow the workflow`, async (t) => {
  const upstream = await startTokenMcpServer({ token: TOKEN });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-crash-worker-'));
  const log = createLogger('crash-worker-test', 'warn', path.join(dataDir, 'logs', 'servers.log'));
  const temporalServer = await startTemporalDevServer({ dataDir, headless: true, log });
  const mongo = await startFerretDb({ dataDir, log });
  const port = await freePort();
  const env = {
    TEMPORAL_ADDRESS: temporalServer.address, MONGODB_URI: mongo.uri, HOST: '127.0.0.1', LOG_LEVEL: 'info', PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`, CONNECTOR__ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
  };
  // A log file per start: readiness is a line in it, which an earlier worker's log must not hold.
  let starts = 0;
  // The worker serves its probes on a port of its own.
  const workerEnv = { ...env, PORT: String(await freePort()) };
  const worker = () => startStackProcess({ entry: 'dist/worker.mjs', env: workerEnv, logFile: path.join(dataDir, 'logs', `worker-${++starts}.log`), readyLogLine: 'worker running' });
  const apiProcess = await startStackProcess({ entry: 'dist/api.mjs', env, logFile: path.join(dataDir, 'logs', 'api.log') });
  const temporal = new Client({ connection: await Connection.connect({ address: temporalServer.address }) });
  let current: StackProcess | undefined;
  // Registered before the first worker starts: a start that fails must not leave the rest running.
  t.teardown(async () => {
    await current?.stop().catch(() => undefined);
    await apiProcess.stop().catch(() => undefined);
    await temporal.connection.close();
    await mongo.stop();
    await temporalServer.stop();
    await upstream.close();
  });
  current = await worker();
  const ids = new Set<string>();
  let checked = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const cutAfterMs = 200 + Math.floor(Math.random() * 2500);
    t.log(`round ${round}: worker SIGKILLed after ${cutAfterMs} ms of traffic`);
    const traffic = randomTraffic(apiProcess.api, upstream.url, ids, Date.now() + cutAfterMs + 3_000);
    await new Promise((r) => setTimeout(r, cutAfterMs));
    await current.kill();
    current = await worker();
    await traffic;
    const count = await checkEveryConnector(apiProcess.api, temporal, ids);
    t.log(`round ${round}: ${count} connectors consistent after the worker restart`);
    checked += count;
  }
  t.true(checked >= ROUNDS, `checked ${checked} connectors over ${ROUNDS} rounds`);
});

/** Four callers doing random lifecycle calls until `until` or until the stack is gone. */
async function randomTraffic(api: ApiCall, url: string, ids: Set<string>, until: number): Promise<void> {
  const pick = () => [...ids][Math.floor(Math.random() * ids.size)];
  const caller = async () => {
    while (Date.now() < until) {
      const dice = Math.random();
      try {
        if (dice < 0.35 || ids.size === 0) {
          const created = await api('POST', '/api/v1/connectors', { url });
          if (created.status === 201) ids.add(created.body.id);
        } else if (dice < 0.7) {
          await api('POST', `/api/v1/connectors/${pick()}/connect`, { access_token: TOKEN });
        } else if (dice < 0.9) {
          await api('POST', `/api/v1/connectors/${pick()}/disconnect`);
        } else {
          await api('DELETE', `/api/v1/connectors/${pick()}`);
        }
      } catch {
        return; // the stack was killed under this call
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, caller));
}

async function checkEveryConnector(api: ApiCall, temporal: Client, ids: Set<string>): Promise<number> {
  // Every connector workflow, also those whose create never answered (their ids are unknown).
  for await (const execution of temporal.workflow.list({ query: "WorkflowType = 'connectorWorkflow'" })) {
    ids.add(execution.workflowId.replace(/^connector:/, ''));
  }
  for (const id of ids) {
    const last = { why: '' };
    await eventually(() => consistent(api, temporal, id, last), 30_000, `connector ${id} to be consistent`)
      .catch((err: Error) => Promise.reject(new Error(`${err.message}: ${last.why}`)));
  }
  return ids.size;
}

/** True when the record, the audit trail and the workflow agree; undefined to be asked again. */
async function consistent(api: ApiCall, temporal: Client, id: string, last: { why: string }): Promise<true | undefined> {
  const handle = temporal.workflow.getHandle(`connector:${id}`);
  const description = await handle.describe().catch(() => null);
  const record = await api('GET', `/api/v1/connectors/${id}`);
  if (!description || description.status.name !== 'RUNNING') {
    last.why = `the workflow is ${description?.status.name ?? 'missing'}, the record answers ${record.status}`;
    return record.status === 404 ? true : undefined; // a finished workflow (deleted) leaves no record
  }
  const view = await handle.query(viewQuery);
  last.why = `record ${record.status} ${record.body?.state} ${record.body?.updated_at}, workflow ${view.state} ${view.updated_at}`;
  if (record.status !== 200 || record.body.state !== view.state || record.body.updated_at !== view.updated_at) return undefined;
  const events: AuditEvent[] = (await api('GET', `/api/v1/connectors/${id}/events?limit=100`)).body.items;
  const written = await transitionsInHistory(temporal, id);
  last.why = `${events.length} audit events, ${written.length} transitions written in history, workflow version ${view.version}`;
  if (events.length !== view.version || written.length !== view.version) return undefined;
  for (const [i, event] of events.entries()) {
    const expected = written[i]!;
    if (event.seq !== i + 1 || event.time !== expected.time || event.from !== expected.from || event.to !== expected.to) {
      throw new Error(`connector ${id}: audit event ${i + 1} ${JSON.stringify(event)} is not the transition in history ${JSON.stringify(expected)}`);
    }
  }
  if (record.body.created_at !== events[0]!.time) throw new Error(`connector ${id}: created_at ${record.body.created_at} is not the first event's time ${events[0]!.time}`);
  if (events.at(-1)!.to !== view.state) throw new Error(`connector ${id}: the last audit event leads to ${events.at(-1)!.to}, the workflow is ${view.state}`);
  return true;
}

/** The transitions the workflow handed to its projection writes, read from its history. */
async function transitionsInHistory(temporal: Client, id: string): Promise<AuditEvent[]> {
  const history = await temporal.workflow.getHandle(`connector:${id}`).fetchHistory();
  const events: AuditEvent[] = [];
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'recordTransition') continue;
    const payload = scheduled.input?.payloads?.[0]?.data;
    if (!payload) continue;
    const input = JSON.parse(Buffer.from(payload).toString('utf8')) as { record: ConnectorRecord; events: AuditEvent[] };
    events.push(...input.events);
  }
  return events.sort((a, b) => a.seq - b.seq);
}

/** The ready lines the embedded stack has logged so far (they name its Temporal address). */
function readyLines(logFile: string): { temporal: string }[] {
  if (!fs.existsSync(logFile)) return [];
  return fs.readFileSync(logFile, 'utf8').trim().split('\n')
    .map((line) => { try { return JSON.parse(line); } catch { return null; } })
    .filter((entry) => entry?.temporal);
}

/** A client of the restarted stack's Temporal: its ready line comes just after /readyz answers. */
async function temporalClient(logFile: string, readyBefore: number): Promise<Client> {
  const ready = await eventually(async () => readyLines(logFile).at(readyBefore), 30_000, 'the restarted stack\'s ready line');
  const connection = await Connection.connect({ address: ready.temporal });
  return new Client({ connection, namespace: 'default' });
}
