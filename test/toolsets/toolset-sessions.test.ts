// The toolset endpoint's sessions and errors, with two endpoints (two proxy replicas) on one session
// store in FerretDB: the per-caller session cap holds across both and a flood by one caller refuses
// nobody else; an idle session is gone; at 2026-07-28 each caller gets member sessions of its own
// where a member keeps state; and the service's own errors answer JSON-RPC requests in JSON-RPC
// with the request's id (401 keeping its challenge), anything else with problem details.
import net from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { PROBLEM_CONTENT_TYPE } from '../../contract/problem';
import { RPC_ERROR } from '../../proxy/problem-response';
import { ToolsetSessionStore } from '../../store/toolset-session-store';
import { startRecordingMcpServer, type RecordingMcpServer } from '../fixtures/recording-mcp-server';
import { startFerretClient } from '../helpers/ferret-client';
import { mcpErrorOf } from '../proxy/mcp-answers';
import { auth, connectedTo, startToolsetHarness, toolsetOf, type ToolsetHarness } from './toolset-harness';

const [TOOLSET, REC, GONE] = ['3c3c3c3c-3c3c-4c3c-8c3c-3c3c3c3c3c3c', '61616161-6161-4161-8161-616161616161', '62626262-6262-4262-8262-626262626262'];
let store: ToolsetSessionStore;
let closeDb: () => Promise<void>;
let recording: RecordingMcpServer;

test.before(async () => {
  const db = await startFerretClient('toolset-endpoint-sessions');
  store = new ToolsetSessionStore(db.client.db('sessions'));
  closeDb = db.close;
  recording = await startRecordingMcpServer({ requireToken: 'rec-token' });
});

test.after.always(async () => {
  await recording?.close();
  await closeDb?.();
});

/** Two endpoints sharing the tables and the session store. */
async function replicas(t: ExecutionContext, sessions: { maxPerOwner?: number; idleMs?: number } = {}): Promise<[ToolsetHarness, ToolsetHarness]> {
  const one = await startToolsetHarness({ sessions }, undefined, store);
  const two = await startToolsetHarness({ sessions }, one, store);
  t.teardown(async () => {
    await one.close();
    await two.close();
  });
  one.routes.set(REC, connectedTo(recording.url, 'rec-token'));
  one.toolsets.set(TOOLSET, toolsetOf(TOOLSET, { rec: REC, gone: GONE }, { access: [{ callers: ['key:bob'], allow: ['rec__*', 'gone__*'] }] }));
  return [one, two];
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) => fetch(url, {
  method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body),
});
const initialize = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

test.serial("a caller's sessions are capped across replicas; a flood by one caller refuses nobody else", async (t) => {
  const [one, two] = await replicas(t, { maxPerOwner: 3 });
  const answers = [];
  for (let i = 0; i < 8; i++) answers.push(await post((i % 2 ? one : two).urlOf(TOOLSET), initialize(i), auth('bob')));
  t.deepEqual(answers.map((a) => a.status), [200, 200, 200, 429, 429, 429, 429, 429]);
  const refused = await mcpErrorOf(answers[5]!);
  t.like(refused.rpc, { id: 5, code: RPC_ERROR.refused });
  t.is(refused.problem.type, 'https://connector-registry.dev/problems/quota-exceeded');
  const alice = await post(one.urlOf(TOOLSET), initialize('a'), auth('alice'));
  t.is(alice.status, 200, "bob's flood does not refuse alice");
  t.truthy(alice.headers.get('mcp-session-id'));
});

test.serial('an idle session is gone: its next request answers 404, on either replica', async (t) => {
  const [one, two] = await replicas(t, { idleMs: 300 });
  const opened = await post(one.urlOf(TOOLSET), initialize(1), auth());
  const session = opened.headers.get('mcp-session-id')!;
  const ping = (h: ToolsetHarness) => post(h.urlOf(TOOLSET), { jsonrpc: '2.0', id: 2, method: 'ping' }, { ...auth(), 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
  t.is((await ping(two)).status, 200, 'served by the other replica while in use');
  await new Promise((resolve) => setTimeout(resolve, 800));
  const gone = await ping(one);
  t.is(gone.status, 404);
  t.like((await mcpErrorOf(gone)).rpc, { id: 2, code: RPC_ERROR.refused });
  t.is((await ping(two)).status, 404);
});

test.serial('at 2026-07-28 a member that keeps state keeps it per caller: never one member session for two callers', async (t) => {
  const [one, two] = await replicas(t);
  const before = recording.sessionIds().length;
  for (const who of ['alice', 'bob'] as const) {
    const client = new ClientV2({ name: who, version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(new URL(one.urlOf(TOOLSET)), { requestInit: { headers: auth(who) } }));
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'rec__echo', arguments: { text: who } });
    await client.close();
  }
  t.is(recording.sessionIds().length - before, 2, 'one member session for each caller');
  t.truthy(two);
});

test.serial("the service's own errors: JSON-RPC with the request's id to a JSON-RPC request, problem details to anything else", async (t) => {
  const [one] = await replicas(t);
  const url = one.urlOf(TOOLSET);
  const anonymous = await post(url, { jsonrpc: '2.0', id: 7, method: 'tools/list' });
  t.is(anonymous.status, 401);
  t.regex(anonymous.headers.get('www-authenticate') ?? '', /resource_metadata=/);
  t.like((await mcpErrorOf(anonymous)).rpc, { id: null, code: RPC_ERROR.unauthenticated }, "an unauthenticated caller's body is not read");
  const unknown = await post(one.urlOf('4d4d4d4d-4d4d-4d4d-8d4d-4d4d4d4d4d4d'), { jsonrpc: '2.0', id: 'u1', method: 'tools/list' }, auth());
  t.is(unknown.status, 404);
  t.like((await mcpErrorOf(unknown)).rpc, { id: 'u1', code: RPC_ERROR.refused });
  const mismatch = await post(url, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'rec__echo', arguments: {} } }, { ...auth(), 'mcp-method': 'tools/call', 'mcp-name': 'rec__ack' });
  t.is(mismatch.status, 400);
  t.like((await mcpErrorOf(mismatch)).rpc, { id: 8, code: RPC_ERROR.headerMismatch });
  const notJson = await fetch(url, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: 'nope' });
  t.is(notJson.status, 400);
  t.is(notJson.headers.get('content-type'), PROBLEM_CONTENT_TYPE);
  const stream = await fetch(url, { headers: { ...auth(), accept: 'text/event-stream' } });
  t.is(stream.status, 400);
  t.is(stream.headers.get('content-type'), PROBLEM_CONTENT_TYPE, 'a GET is not JSON-RPC');
  // A member that cannot be reached: the toolset answers the call, 200 with -31004 and the problem.
  const closed = await unusedPort();
  one.routes.set(GONE, connectedTo(`http://127.0.0.1:${closed}/mcp`, 'gone-token'));
  const client = new ClientV2({ name: 'errors', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers: auth() } }));
  const err = await client.callTool({ name: 'gone__anything', arguments: {} }).then(() => null, (e: { code?: number; data?: any }) => e);
  t.is(err?.code, RPC_ERROR.upstreamUnreachable);
  t.is(err?.data?.status, 502);
  await client.close();
});

function unusedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}


