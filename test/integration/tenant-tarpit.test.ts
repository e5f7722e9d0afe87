// One owner's slow servers cannot stall another owner's connectors.
//
// Workflow-task slots (activities/in-task-admission.ts). The probe of a given token runs inside the connect's workflow task, and the worker runs 8 such
// tasks at a time. Mallory points a dozen connectors at a tarpit (it takes connections and never
// answers) and connects them all at once, with a connect timeout of 30 s. Before the budget, each
// probe held its task's slot until that timeout, retried in the task, and Bob's connect waited
// behind them. Now Bob's connect is answered while Mallory's connectors all still wait on the
// tarpit; at most two of her tries waited out the 1 s budget, the rest left their tasks at
// once, none was ended by the task's own timeout; and Bob's probe still runs in its task:
// Mallory's slowness sends only her own calls out of tasks.
//
// Activity slots (service/worker-runtime.ts). Eve points all the connectors her quota allows at a
// tarpit and connects them at once: their probes, as regular activities, wait on it. The record
// and audit writes of every owner's transitions are activities too. With the SDK's 100 slots
// Eve's probes held every one, and Bob's create waited until her first probes gave up (27 s with a
// connect timeout of 30 s; her probes were at their second attempt when he was answered).
import net from 'node:net';
import test from 'ava';
import { sha256Hex } from '../../callers/api-keys';
import { IN_TASK_LIMITS } from '../../activities/in-task-admission';
import { connectorWorkflowId } from '../../workflows/messages';
import { startToolsMcpServer, type ToolsMcpServer } from '../fixtures/tools-mcp-server';
import { historyOfAllRuns, runOf } from '../helpers/history-values';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';

const KEYS = { mallory: 'mallory-key-tarpit-1f2e', eve: 'eve-key-tarpit-5b6a', bob: 'bob-key-tarpit-3d4c' };
/** CONNECTOR__MAX_CONNECTORS_PER_OWNER's default. */
const QUOTA = 100;
const as = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...extra });
const MALLORYS_CONNECTORS = 12;

/** Takes connections and never answers; counts them. */
async function startTarpit() {
  const sockets = new Set<net.Socket>();
  const seen = { opened: 0 };
  const server = net.createServer((socket) => {
    seen.opened += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    async close() {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

let stack: TestStack;
let upstream: ToolsMcpServer;
let tarpit: Awaited<ReturnType<typeof startTarpit>>;
type Tarpit = typeof tarpit;

test.before(async () => {
  upstream = await startToolsMcpServer({ name: 'up', tokens: { 'bob-token': ['bobs_tool'] } });
  tarpit = await startTarpit();
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([
      { subject: 'mallory', sha256: sha256Hex(KEYS.mallory) },
      { subject: 'eve', sha256: sha256Hex(KEYS.eve) },
      { subject: 'bob', sha256: sha256Hex(KEYS.bob) },
    ]),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
    CONNECTOR__RATE_LIMIT_PER_OWNER: 'off',
    CONNECTOR__CONNECT_TIMEOUT_MS: '30000',
  });
});

test.after.always(async () => {
  await tarpit?.close();
  await stack?.stop();
  await upstream?.close();
});

async function created(key: string, url: string): Promise<string> {
  const res = await stack.api('POST', '/api/v1/connectors', { url, match_preset: false }, as(key));
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.body.id;
}

/** Where the connector's token probe ran: in its task (a local activity's marker), as a regular activity, or both. */
async function probeRuns(id: string): Promise<string[]> {
  const { events } = await historyOfAllRuns(stack.temporal, connectorWorkflowId(id));
  return (events ?? []).map((e) => runOf(e, 'probeServer')).filter((run) => run !== null);
}

/** The connectors' states, as their owner reads them. */
const statesOf = (key: string, ids: string[]) => Promise.all(ids.map(async (id) => (await stack.api('GET', `/api/v1/connectors/${id}`, undefined, as(key))).body.state as string));

/** Closes the tarpit and waits until every connector that waited on it has its answer. */
async function drain(pit: Tarpit, key: string, ids: string[], connects: Promise<unknown>[]): Promise<string[]> {
  await pit.close();
  await Promise.all(connects);
  return eventually(async () => {
    const now = await statesOf(key, ids);
    return now.every((s) => s !== 'connecting') ? now : undefined;
  }, 120_000, 'the connects to end');
}

/** The attempt its probe, as a regular activity, is at now (0: none pending). */
async function probeAttempt(id: string): Promise<number> {
  const { raw } = await stack.temporal.workflow.getHandle(connectorWorkflowId(id)).describe();
  return raw.pendingActivities?.find((a) => a.activityType?.name === 'probeServer')?.attempt ?? 0;
}

/** How the connector's tries in a task ended, when they failed (a local activity's marker carries its failure). */
async function inTaskFailures(id: string) {
  const { events } = await historyOfAllRuns(stack.temporal, connectorWorkflowId(id));
  return (events ?? []).flatMap((e) => (e.markerRecordedEventAttributes?.failure ? [e.markerRecordedEventAttributes.failure] : []));
}

test.serial("a tenant's tarpit holds none of the workflow slots another tenant's connect needs", async (t) => {
  const mallorys = await Promise.all(Array.from({ length: MALLORYS_CONNECTORS }, () => created(KEYS.mallory, tarpit.url)));
  const connects = mallorys.map((id) => stack.api('POST', `/api/v1/connectors/${id}/connect`, { access_token: 'anything' }, as(KEYS.mallory, { prefer: 'respond-async' })));
  await eventually(async () => (tarpit.seen.opened >= 8 ? true : undefined), 60_000, 'eight of mallory\'s probes at the tarpit');

  const bobs = await created(KEYS.bob, upstream.url);
  const connected = await stack.api('POST', `/api/v1/connectors/${bobs}/connect`, { access_token: 'bob-token' }, as(KEYS.bob));
  // Her last tries may still be on their way to their task; each of them ends within the budget.
  const mallorysTries = await eventually(async () => {
    const tries = (await Promise.all(mallorys.map(inTaskFailures))).flat();
    return tries.length === MALLORYS_CONNECTORS ? tries : undefined;
  }, 60_000, "each of mallory's tries in a task to end");

  t.is(connected.status, 200, connected.text);
  t.is(connected.body.state, 'connected');
  const states = await statesOf(KEYS.mallory, mallorys);
  t.true(states.every((s) => s === 'connecting'), `mallory's connectors still wait on the tarpit: ${states.join(', ')}`);
  t.deepEqual(mallorysTries.filter((f) => f.timeoutFailureInfo), [], 'the budget ended her tries, not the task\'s own timeout');
  const overran = mallorysTries.filter((f) => /did not answer within/.test(f.message ?? ''));
  t.true(overran.length >= 1 && overran.length <= IN_TASK_LIMITS.perOwner, `${overran.length} of her tries waited out the budget; the rest left at once`);
  t.deepEqual(await probeRuns(bobs), ['in task'], "bob's probe still ran in its task: mallory's slowness sent only her calls out");

  const ended = await drain(tarpit, KEYS.mallory, mallorys, connects);
  t.true(ended.every((s) => s === 'disconnected'), `a tarpit that went away fails the connect: ${ended.join(', ')}`);
});

test.serial("a tenant's whole quota of connectors waiting on its tarpit holds none of the activity slots another tenant's transitions need", async (t) => {
  const pit = await startTarpit();
  const eves = await Promise.all(Array.from({ length: QUOTA }, () => created(KEYS.eve, pit.url)));
  const connects = eves.map((id) => stack.api('POST', `/api/v1/connectors/${id}/connect`, { access_token: 'anything' }, as(KEYS.eve, { prefer: 'respond-async' })));
  await eventually(async () => (pit.seen.opened >= QUOTA ? true : undefined), 120_000, "every one of eve's probes at the tarpit");

  const bobs = await created(KEYS.bob, upstream.url);
  const connected = await stack.api('POST', `/api/v1/connectors/${bobs}/connect`, { access_token: 'bob-token' }, as(KEYS.bob));
  const evesAttempts = await Promise.all(eves.map(probeAttempt));

  t.is(connected.status, 200, connected.text);
  t.is(connected.body.state, 'connected');
  t.deepEqual(evesAttempts.filter((n) => n > 1), [], "none of eve's probes had been tried again (its first attempt timed out) when bob's create and connect were answered");
  t.true(evesAttempts.filter((n) => n === 1).length >= QUOTA - IN_TASK_LIMITS.perOwner, `eve's probes wait on the tarpit as activities: ${evesAttempts.join(',')}`);
  const ended = await drain(pit, KEYS.eve, eves, connects);
  t.true(ended.every((s) => s === 'disconnected'), ended.join(', '));
});
