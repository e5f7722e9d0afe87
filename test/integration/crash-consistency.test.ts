// The record never gets ahead of Temporal. Rounds of random traffic (create, connect with a
// token, disconnect, delete, from several callers at once) are cut by a SIGKILL of the whole
// stack at a random moment; after each restart, for every connector workflow: the record equals
// the workflow's own view within a few seconds, the audit trail is exactly the transitions the
// workflow handed to its projection writes in history (in order, no gap, no phantom), and
// `created_at` is the first audit event's time; and every list view (all, by state, by owner, by
// owner and state, each caller's own) holds each connector once, in the state GET answers, with a
// `total_count` that says it is exact and is the number of items paged through, and never a
// connector that answered 404. The moments are drawn at random, many times: not points chosen in
// advance. A second test kills the worker alone, in the production split (API and worker as
// separate processes), while the API goes on taking calls; a third kills the database alone
// (CRASH_DATABASE_ROUNDS).
// Four callers with API keys (one an admin) make the traffic, so that connectors have owners.
// CRASH_ROUNDS sets the rounds of each test (npm test runs a few; the seeds of failures are logged);
// CRASH_LOG names a file that gets each round's line as it ends (ava prints t.log at the test's end).
import type { ConnectorRecord } from '../../contract/connector-record';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { Client, Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { createLogger } from '../../platform/logger';
import { startFerretDb } from '../../stack/servers/ferretdb-server';
import { freePortBelowEphemeral } from '../../service/free-port';
import { startTemporalDevServer } from '../../stack/servers/temporal-dev-server';
import { viewQuery } from '../../workflows/messages';
import { startOnFreePort, startStackProcess, type StackProcess } from '../helpers/stack-process';
import { eventually, type ApiCall } from '../helpers/test-stack';
import { inParallel } from '../helpers/in-parallel';
import { checkListViews, keyCallers, type Callers } from '../helpers/list-views';
import { startTokenMcpServer } from '../fixtures/token-mcp-server';
import { historyOfAllRuns } from '../helpers/history-values';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);
const TOKEN = 'crash-consistency-token-3b9d';

interface AuditEvent { seq: number; time: string; actor: string; from: string | null; to: string; reason: string | null }

/** A round's randomness from its seed (mulberry32), logged so that a failing round can be told apart and tried again (CRASH_SEED). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function roundSeed(round: number): number {
  return process.env.CRASH_SEED ? Number(process.env.CRASH_SEED) + round - 1 : crypto.randomInt(2 ** 31);
}

/**
 * ava's own limit (3 minutes without a result) is for tests of a fixed size; these run as many
 * rounds as asked, each bounded by its own deadlines (readiness, consistency), so that ava's
 * limit grows with them instead of cutting a long run on a busy machine.
 */
const ROUND_BOUND_MS = 10 * 60_000;

/**
 * How long a connector or a list may take to come right after a restart: generous, because a
 * write that failed while the database was down is retried by Temporal with a backoff of up to
 * 30 s (workflows/activity-proxies.ts), and the machine may be busy.
 */
const CONVERGE_MS = 120_000;

/** What the rounds of one test share: the connectors met so far, those that answered 404, and the callers. */
interface Rounds {
  ids: Map<string, number>;
  gone: Set<string>;
  callers: Callers;
}

test.serial(`${ROUNDS} rounds of random traffic cut by SIGKILL: record, audit trail and every list follow the workflow`, async (t) => {
  t.timeout(ROUNDS * ROUND_BOUND_MS);
  const upstream = await startTokenMcpServer({ token: TOKEN });
  t.teardown(() => upstream.close());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-crash-consistency-'));
  const logFile = path.join(dataDir, 'logs', 'stack.log');
  const port = await freePortBelowEphemeral();
  const rounds: Rounds = { ids: new Map(), gone: new Set(), callers: keyCallers(['alice', 'bob', 'carol']) };
  const env = { DATA_DIR: dataDir, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'info', ...rounds.callers.env };
  let checked = 0;
  // The stack a round checked carries the next round's traffic: a graceful stop and start between
  // rounds would cost a start of the three servers a round and cut nothing.
  let stack = await startStackProcess({ env, logFile });
  t.teardown(() => stack.stop().catch(() => undefined));
  for (let round = 1; round <= ROUNDS; round++) {
    const seed = roundSeed(round);
    const random = seeded(seed);
    const cutAfterMs = 200 + Math.floor(random() * 2500);
    say(t, `round ${round} (seed ${seed}): traffic cut by SIGKILL after ${cutAfterMs} ms`);
    const traffic = randomTraffic(stack.api, upstream.url, rounds, random, Date.now() + cutAfterMs + 5_000);
    await new Promise((r) => setTimeout(r, cutAfterMs));
    await stack.kill();
    await traffic;

    const readyBefore = readyLines(logFile).length;
    stack = await startStackProcess({ env, logFile });
    const temporal = await temporalClient(logFile, readyBefore);
    try {
      checked += await checkRound(t, `round ${round} (seed ${seed})`, stack.api, temporal, rounds);
    } finally {
      await temporal.connection.close();
    }
  }
  t.true(checked >= ROUNDS, `checked ${checked} connectors over ${ROUNDS} rounds`);
});

test.serial(`${ROUNDS} rounds with the worker alone SIGKILLed while the API takes calls: record, audit trail and every list follow the workflow`, async (t) => {
  t.timeout(ROUNDS * ROUND_BOUND_MS);
  const upstream = await startTokenMcpServer({ token: TOKEN });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-crash-worker-'));
  const log = createLogger('crash-worker-test', 'warn', path.join(dataDir, 'logs', 'servers.log'));
  const temporalServer = await startTemporalDevServer({ dataDir, headless: true, log });
  const mongo = await startFerretDb({ dataDir, log });
  const port = await freePortBelowEphemeral();
  const rounds: Rounds = { ids: new Map(), gone: new Set(), callers: keyCallers(['alice', 'bob', 'carol']) };
  const env = {
    TEMPORAL_ADDRESS: temporalServer.address, MONGODB_URI: mongo.uri, HOST: '127.0.0.1', LOG_LEVEL: 'info', PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`, CONNECTOR__ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'), ...rounds.callers.env,
  };
  // A log file per start: readiness is a line in it, which an earlier worker's log must not hold.
  let starts = 0;
  // The worker serves its probes on a port of its own, picked at each start (nothing else names it).
  const worker = () => startOnFreePort({
    entry: 'dist/worker.mjs', env, logFile: path.join(dataDir, 'logs', `worker-${++starts}.log`), readyLogLine: 'worker running',
  });
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
  let checked = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const seed = roundSeed(round);
    const random = seeded(seed);
    const cutAfterMs = 200 + Math.floor(random() * 2500);
    say(t, `round ${round} (seed ${seed}): worker SIGKILLed after ${cutAfterMs} ms of traffic`);
    const traffic = randomTraffic(apiProcess.api, upstream.url, rounds, random, Date.now() + cutAfterMs + 3_000);
    await new Promise((r) => setTimeout(r, cutAfterMs));
    await current.kill();
    current = await worker();
    await traffic;
    checked += await checkRound(t, `round ${round} (seed ${seed})`, apiProcess.api, temporal, rounds);
  }
  t.true(checked >= ROUNDS, `checked ${checked} connectors over ${ROUNDS} rounds`);
});

/**
 * Two rounds in `npm test` (CRASH_DATABASE_ROUNDS sets more). Earlier runs of 100 rounds at a load
 * of 30 met, a few times, the service's MongoDB client not reaching the restarted FerretDB for
 * minutes while a fresh client reached it; not met in the 75 rounds run since (40 one stop, 35
 * the next). If it is met, the failure says what a fresh client could do (databaseState).
 */
const DATABASE_ROUNDS = Number(process.env.CRASH_DATABASE_ROUNDS ?? 2);

(DATABASE_ROUNDS > 0 ? test.serial : test.serial.skip)(`${DATABASE_ROUNDS} rounds with the database alone SIGKILLed while the service takes calls: record, audit trail and every list follow the workflow`, async (t) => {
  const ROUNDS = DATABASE_ROUNDS;
  t.timeout(ROUNDS * ROUND_BOUND_MS);
  const upstream = await startTokenMcpServer({ token: TOKEN });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-crash-database-'));
  // FerretDB's own output is logged at debug: kept, so that a failed round shows what it said.
  const log = createLogger('crash-database-test', 'debug', path.join(dataDir, 'logs', 'servers.log'));
  const mongoPort = await freePortBelowEphemeral();
  let mongo = await startFerretDb({ dataDir, port: mongoPort, log });
  const port = await freePortBelowEphemeral();
  const rounds: Rounds = { ids: new Map(), gone: new Set(), callers: keyCallers(['alice', 'bob', 'carol']) };
  // The embedded stack with the database outside it: only the database dies.
  const env = { DATA_DIR: dataDir, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'info', MONGODB_URI: mongo.uri, ...rounds.callers.env };
  const logFile = path.join(dataDir, 'logs', 'stack.log');
  const stack = await startStackProcess({ env, logFile });
  const temporal = await temporalClient(logFile, 0);
  t.teardown(async () => {
    await stack.stop().catch(() => undefined);
    await temporal.connection.close();
    await mongo.stop();
    await upstream.close();
  });
  let checked = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const seed = roundSeed(round);
    const random = seeded(seed);
    const cutAfterMs = 200 + Math.floor(random() * 2500);
    say(t, `round ${round} (seed ${seed}): database SIGKILLed after ${cutAfterMs} ms of traffic`);
    const traffic = randomTraffic(stack.api, upstream.url, rounds, random, Date.now() + cutAfterMs + 3_000);
    await new Promise((r) => setTimeout(r, cutAfterMs));
    process.kill(mongo.pid, 'SIGKILL');
    await mongo.stop();
    mongo = await startFerretDb({ dataDir, port: mongoPort, log });
    await traffic;
    checked += await checkRound(t, `round ${round} (seed ${seed})`, stack.api, temporal, rounds).catch(async (err: Error) => {
      throw new Error(`${err.message}; the restarted FerretDB (pid ${mongo.pid}) ${await databaseState(mongo.uri, mongo.pid)}; logs in ${dataDir}/logs`);
    });
  }
  t.true(checked >= ROUNDS, `checked ${checked} connectors over ${ROUNDS} rounds`);
});

/**
 * Whether the database process lives and serves, for a failure's message: a ping (answered
 * without touching storage) and a read of the service's records through a fresh client, so that a
 * service client that cannot reach a database that serves others is told apart from a database
 * that accepts connections but fails its queries; and the sockets on its port (`ss`), which show
 * whether the service still holds connections to it.
 */
async function databaseState(uri: string, pid: number): Promise<string> {
  let alive = true;
  try { process.kill(pid, 0); } catch { alive = false; }
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
  const answered = (what: string) => [() => `answers ${what}`, (e: Error) => `does not answer ${what} (${e.message})`] as const;
  const ping = await client.db('admin').command({ ping: 1 }).then(...answered('a ping'));
  const read = await client.db('connector_registry').collection('connectors').countDocuments({}, { maxTimeMS: 5_000 }).then(...answered('a read of the records'));
  await client.close();
  const port = new URL(uri).port;
  const sockets = spawnSync('ss', ['-tanH', `( sport = :${port} or dport = :${port} )`], { encoding: 'utf8' });
  const lines = (sockets.stdout ?? '').trim().split('\n').filter(Boolean);
  const states = [...new Set(lines.map((l) => l.split(/\s+/)[0]))].map((state) => `${lines.filter((l) => l.startsWith(state!)).length} ${state}`);
  return `${alive ? 'runs' : 'has exited'}, ${ping}, ${read}; sockets on its port: ${states.join(', ') || 'none'}`;
}

/** Four callers (the last an admin) doing random lifecycle calls until `until` or until the service is gone. */
async function randomTraffic(api: ApiCall, url: string, rounds: Rounds, random: () => number, until: number): Promise<void> {
  const { ids, callers } = rounds;
  const caller = async (who: number) => {
    const admin = who === callers.headers.length - 1;
    const headers = callers.headers[who]!;
    while (Date.now() < until) {
      const mine = [...ids].filter(([, owner]) => admin || owner === who).map(([id]) => id);
      const pick = () => mine[Math.floor(random() * mine.length)];
      const dice = random();
      try {
        if (dice < 0.35 || mine.length === 0) {
          const created = await api('POST', '/api/v1/connectors', { url }, headers);
          if (created.status === 201) ids.set(created.body.id, who);
        } else if (dice < 0.7) {
          await api('POST', `/api/v1/connectors/${pick()}/connect`, { access_token: TOKEN }, headers);
        } else if (dice < 0.9) {
          await api('POST', `/api/v1/connectors/${pick()}/disconnect`, undefined, headers);
        } else {
          await api('DELETE', `/api/v1/connectors/${pick()}`, undefined, headers);
        }
      } catch {
        return; // the stack was killed under this call
      }
    }
  };
  await Promise.all(callers.headers.map((_, who) => caller(who)));
}

function say(t: ExecutionContext, line: string): void {
  t.log(line);
  if (process.env.CRASH_LOG) fs.appendFileSync(process.env.CRASH_LOG, `${new Date().toISOString()} ${t.title.slice(0, 40)}: ${line}\n`);
}

/** After a restart: every connector follows its workflow, then every list view is exact; answers how many connectors were checked. */
async function checkRound(t: ExecutionContext, round: string, api: ApiCall, temporal: Client, rounds: Rounds): Promise<number> {
  const count = await checkEveryConnector(api, temporal, rounds);
  const last = { why: '' };
  const views = await eventually(async () => {
    try {
      return await checkListViews(api, rounds.callers, rounds.gone);
    } catch (err) {
      last.why = (err as Error).message;
      return undefined;
    }
  }, CONVERGE_MS, 'every list view to be exact').catch((err: Error) => Promise.reject(new Error(`${round}: ${err.message}: ${last.why}`)));
  say(t, `${round}: ${count} connectors consistent, ${views} list views exact (${rounds.gone.size} gone)`);
  return count;
}

async function checkEveryConnector(api: ApiCall, temporal: Client, rounds: Rounds): Promise<number> {
  // Every connector workflow, also those whose create never answered (their ids are unknown).
  for await (const execution of temporal.workflow.list({ query: "WorkflowType = 'connectorWorkflow'" })) {
    const id = execution.workflowId.replace(/^connector:/, '');
    if (!rounds.ids.has(id)) rounds.ids.set(id, rounds.callers.headers.length - 1);
  }
  // A few at a time: a long run checks hundreds of connectors a round, 70–80 s one by one.
  await inParallel(rounds.ids.keys(), CHECKERS, async (id) => {
    const last = { why: '' };
    await eventually(() => consistent(api, rounds, temporal, id, last), CONVERGE_MS, `connector ${id} to be consistent`)
      .catch((err: Error) => Promise.reject(new Error(`${err.message}: ${last.why}`)));
  });
  return rounds.ids.size;
}

const CHECKERS = 6;

/** True when the record, the audit trail and the workflow agree; undefined to be asked again. */
async function consistent(api: ApiCall, rounds: Rounds, temporal: Client, id: string, last: { why: string }): Promise<true | undefined> {
  const admin = rounds.callers.admin;
  const handle = temporal.workflow.getHandle(`connector:${id}`);
  const description = await handle.describe().catch(() => null);
  const record = await api('GET', `/api/v1/connectors/${id}`, undefined, admin);
  if (!description || description.status.name !== 'RUNNING') {
    last.why = `the workflow is ${description?.status.name ?? 'missing'}, the record answers ${record.status}`;
    if (record.status !== 404) return undefined;
    rounds.gone.add(id); // a finished workflow (deleted) leaves no record, and no list may hold it again
    return true;
  }
  last.why = `record ${record.status}, the workflow's view query has not answered`;
  const view = await handle.query(viewQuery);
  last.why = `record ${record.status} ${record.body?.state} ${record.body?.updated_at}, workflow ${view.state} ${view.updated_at}`;
  if (record.status !== 200 || record.body.state !== view.state || record.body.updated_at !== view.updated_at) return undefined;
  const events: AuditEvent[] = (await api('GET', `/api/v1/connectors/${id}/events?limit=100`, undefined, admin)).body.items;
  const written = await transitionsInHistory(temporal, id);
  const pending = (description.raw.pendingActivities ?? []).map((a) => `${a.activityType?.name} attempt ${a.attempt}${a.lastFailure?.message ? ` (${a.lastFailure.message})` : ''}`);
  last.why = `${events.length} audit events, ${written.length} transitions written in history, workflow version ${view.version}; activities under way: ${pending.join(', ') || 'none'}`;
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
  const history = await historyOfAllRuns(temporal, `connector:${id}`);
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
  const ready = await eventually(async () => readyLines(logFile).at(readyBefore), CONVERGE_MS, 'the restarted stack\'s ready line');
  const connection = await Connection.connect({ address: ready.temporal });
  return new Client({ connection, namespace: 'default' });
}
