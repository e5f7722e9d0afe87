// One owner's slow servers cannot stall another owner's connectors (activities/in-task-admission.ts).
// The probe of a given token runs inside the connect's workflow task, and the worker runs 8 such
// tasks at a time. Mallory points a dozen connectors at a tarpit (it takes connections and never
// answers) and connects them all at once, with a connect timeout of 30 s. Before the budget, each
// probe held its task's slot until that timeout, retried in the task, and Bob's connect waited
// behind them. Now Bob's connect is answered while every one of Mallory's connections is still
// held open; at most two of her tries waited out the 1 s budget, the rest left their tasks at
// once, none was ended by the task's own timeout; and Bob's probe still runs in its task:
// Mallory's slowness sends only her own calls out of tasks.
import net from 'node:net';
import test from 'ava';
import { sha256Hex } from '../../callers/api-keys';
import { IN_TASK_LIMITS } from '../../activities/in-task-admission';
import { connectorWorkflowId } from '../../workflows/messages';
import { startToolsMcpServer, type ToolsMcpServer } from '../fixtures/tools-mcp-server';
import { runOf } from '../helpers/history-values';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';

const KEYS = { mallory: 'mallory-key-tarpit-1f2e', bob: 'bob-key-tarpit-3d4c' };
const as = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...extra });
const MALLORYS_CONNECTORS = 12;

/** Takes connections and never answers; counts those opened and those the other side gave up on. */
async function startTarpit() {
  const sockets = new Set<net.Socket>();
  const seen = { opened: 0, closed: 0 };
  const server = net.createServer((socket) => {
    seen.opened += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      seen.closed += 1;
      sockets.delete(socket);
    });
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

test.before(async () => {
  upstream = await startToolsMcpServer({ name: 'up', tokens: { 'bob-token': ['bobs_tool'] } });
  tarpit = await startTarpit();
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([
      { subject: 'mallory', sha256: sha256Hex(KEYS.mallory) },
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
  const { events } = await stack.temporal.workflow.getHandle(connectorWorkflowId(id)).fetchHistory();
  return (events ?? []).map((e) => runOf(e, 'probeServer')).filter((run) => run !== null);
}

/** How the connector's tries in a task ended, when they failed (a local activity's marker carries its failure). */
async function inTaskFailures(id: string) {
  const { events } = await stack.temporal.workflow.getHandle(connectorWorkflowId(id)).fetchHistory();
  return (events ?? []).flatMap((e) => (e.markerRecordedEventAttributes?.failure ? [e.markerRecordedEventAttributes.failure] : []));
}

test("a tenant's tarpit holds none of the workflow slots another tenant's connect needs", async (t) => {
  const mallorys = await Promise.all(Array.from({ length: MALLORYS_CONNECTORS }, () => created(KEYS.mallory, tarpit.url)));
  const connects = mallorys.map((id) => stack.api('POST', `/api/v1/connectors/${id}/connect`, { access_token: 'anything' }, as(KEYS.mallory, { prefer: 'respond-async' })));
  await eventually(async () => (tarpit.seen.opened >= 8 ? true : undefined), 60_000, 'eight of mallory\'s probes at the tarpit');

  const bobs = await created(KEYS.bob, upstream.url);
  const connected = await stack.api('POST', `/api/v1/connectors/${bobs}/connect`, { access_token: 'bob-token' }, as(KEYS.bob));
  const seenThen = { ...tarpit.seen };
  const mallorysTries = (await Promise.all(mallorys.map(inTaskFailures))).flat();

  t.is(connected.status, 200, connected.text);
  t.is(connected.body.state, 'connected');
  t.is(seenThen.closed, 0, `none of mallory's ${seenThen.opened} connections had given up when bob's connect was answered`);
  const states = await Promise.all(mallorys.map(async (id) => (await stack.api('GET', `/api/v1/connectors/${id}`, undefined, as(KEYS.mallory))).body.state));
  t.true(states.every((s) => s === 'connecting'), `mallory's connectors still wait on the tarpit: ${states.join(', ')}`);
  t.is(mallorysTries.length, MALLORYS_CONNECTORS, 'each of her probes had its try in a task, and left it');
  t.deepEqual(mallorysTries.filter((f) => f.timeoutFailureInfo), [], 'the budget ended her tries, not the task\'s own timeout');
  const overran = mallorysTries.filter((f) => /did not answer within/.test(f.message ?? ''));
  t.true(overran.length >= 1 && overran.length <= IN_TASK_LIMITS.perOwner, `${overran.length} of her tries waited out the budget; the rest left at once`);
  t.deepEqual(await probeRuns(bobs), ['in task'], "bob's probe still ran in its task: mallory's slowness sent only her calls out");

  await tarpit.close();
  await Promise.all(connects);
  const ended = await eventually(async () => {
    const now = await Promise.all(mallorys.map(async (id) => (await stack.api('GET', `/api/v1/connectors/${id}`, undefined, as(KEYS.mallory))).body.state));
    return now.every((s) => s !== 'connecting') ? now : undefined;
  }, 120_000, "mallory's connects to end");
  t.true(ended.every((s) => s === 'disconnected'), `a tarpit that went away fails the connect: ${ended.join(', ')}`);
});
