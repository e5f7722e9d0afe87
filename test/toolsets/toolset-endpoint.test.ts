// The toolset MCP endpoint on its own (no registry): a node http server in front of
// createToolsetEndpoint with a mutable route table, a toolset source in memory, caller
// authentication by API keys, and real SDK MCP servers as members. The SDK clients of both eras
// list and call three members through one URL; a member's state change drops its list and tells
// open sessions; a call to a member not connected answers -32010 with its reason.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { createAuthenticator } from '../../callers/authenticator';
import { sha256Hex } from '../../callers/api-keys';
import { createLogger } from '../../platform/logger';
import type { ToolsetRecord } from '../../contract/toolset-record';
import { CallerGate } from '../../proxy/caller-gate';
import type { Route, RouteSource } from '../../proxy/route';
import { createToolsetEndpoint, type ToolsetEndpoint } from '../../proxy/toolset/toolset-endpoint';
import { toolsetIdFromPath } from '../../proxy/toolset/toolset-path';
import type { MemberStatus } from '../../proxy/toolset/toolset-source';
import { startRecordingMcpServer } from '../fixtures/recording-mcp-server';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { startToolsMcpServer, type ToolsMcpServer } from '../fixtures/tools-mcp-server';

const KEY = 'endpoint-key-alice-5e4d';
const OTHER = 'endpoint-key-mallory-3c2b';
const TOOLSET = '0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8';
const SESSIONS_TOOLSET = '0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e9';
const RECORDING = '44444444-4444-4444-8444-444444444444';
const IDS = { pay: '11111111-1111-4111-8111-111111111111', content: '22222222-2222-4222-8222-222222222222', code: '33333333-3333-4333-8333-333333333333' };

let pay: ToolsMcpServer;
let content: ToolsMcpServer;
let code: TokenMcpServer;
let endpoint: ToolsetEndpoint;
let server: http.Server;
let url: string;
const table = new Map<string, Route>();
const statuses = new Map<string, MemberStatus>();

const refreshes: string[] = [];
const nextTokens = new Map<string, string>();
const routes: RouteSource = {
  get: async (id) => table.get(id) ?? { kind: 'not_found' },
  // The registry's refresh: the member's next token, as the workflow would answer it.
  refresh: async (id, sealedToken) => {
    refreshes.push(sealedToken);
    const route = table.get(id)!;
    const token = nextTokens.get(id);
    if (route.kind !== 'connected' || !token) throw new Error('nothing to refresh with');
    table.set(id, { ...route, token, sealedToken: `sealed-${token}` });
    return table.get(id)!;
  },
};
const toolset: ToolsetRecord = {
  id: TOOLSET, name: 'endpoint', description: '', created_by: 'key:alice', created_at: '', updated_at: '', access: [],
  members: [
    { connector_id: IDS.pay, prefix: 'pay', tools: { allow: ['*'], deny: ['refund'] } },
    { connector_id: IDS.content, prefix: 'content', tools: { allow: ['*'], deny: [] } },
    { connector_id: IDS.code, prefix: 'code', tools: { allow: ['*'], deny: [] } },
  ],
};
const sessionsToolset: ToolsetRecord = { ...toolset, id: SESSIONS_TOOLSET, members: [{ connector_id: RECORDING, prefix: 'rec', tools: { allow: ['*'], deny: [] } }] };
const connectedTo = (target: string, token: string): Route => ({ kind: 'connected', target, token, sealedToken: `sealed-${token}`, owner: 'key:alice' });

test.before(async () => {
  pay = await startToolsMcpServer({ name: 'payments', tokens: { 'pay-token': ['create_invoice', 'refund'] } });
  content = await startToolsMcpServer({ name: 'content', tokens: { 'content-token': ['search'] }, extras: true });
  code = await startTokenMcpServer({ token: 'code-token' });
  table.set(IDS.pay, connectedTo(pay.url, 'pay-token'));
  table.set(IDS.content, connectedTo(content.url, 'content-token'));
  table.set(IDS.code, connectedTo(code.url, 'code-token'));
  const authenticator = createAuthenticator({ enabled: true, apiKeys: [{ subject: 'alice', sha256: sha256Hex(KEY), admin: false }, { subject: 'mallory', sha256: sha256Hex(OTHER), admin: false }], jwt: null }, fetch);
  server = http.createServer((req, res) => {
    const id = toolsetIdFromPath(req.url ?? '/');
    if (id) endpoint.handle(req, res, id);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  endpoint = createToolsetEndpoint({
    routes, policy: { blockPrivateNetworks: false }, logger: createLogger('toolset-test', process.env.LOG_LEVEL ?? 'silent'),
    callers: new CallerGate({ authenticator, baseUrl: base, maxStreamsPerOwner: 64 }),
    source: { toolset: async (id) => (id === TOOLSET ? toolset : id === SESSIONS_TOOLSET ? sessionsToolset : null), memberStatus: async (id) => statuses.get(id) ?? null },
  });
  url = `${base}/api/v1/toolsets/${TOOLSET}/mcp`;
});

test.after.always(async () => {
  await endpoint?.close();
  server?.closeAllConnections();
  server?.close();
  await Promise.all([pay?.close(), content?.close(), code?.close()]);
});

const auth = (key = KEY) => ({ authorization: `Bearer ${key}` });
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;

test.serial('a 2025-11-25 client: one session, the three members\' tools prefixed and filtered, calls routed', async (t) => {
  const client = new ClientV1({ name: 't', version: '1' });
  const transport = new TransportV1(new URL(url), { requestInit: { headers: auth() } });
  await client.connect(transport);
  t.truthy(transport.sessionId);
  t.deepEqual((await client.listTools()).tools.map((x) => x.name).sort(), ['code__echo', 'content__search', 'pay__create_invoice']);
  t.is(textOf(await client.callTool({ name: 'pay__create_invoice', arguments: { text: 'a' } })), 'payments:create_invoice:a');
  t.is(textOf(await client.callTool({ name: 'code__echo', arguments: { text: 'b' } })), 'b');
  const denied = await client.callTool({ name: 'pay__refund', arguments: {} }).then(() => null, (e: { code?: number }) => e);
  t.is(denied?.code, -32602);
  t.false(pay.seenAuthorization.includes(`Bearer ${KEY}`), "the caller's credential never goes upstream");
  t.true(pay.seenAuthorization.every((a) => a === 'Bearer pay-token'));
  await transport.terminateSession();
  await client.close();
});

test.serial('a 2026-07-28 client: no session, the same tools and calls', async (t) => {
  const client = new ClientV2({ name: 't', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers: auth() } }));
  t.is(client.getNegotiatedProtocolVersion(), '2026-07-28');
  t.deepEqual((await client.listTools()).tools.map((x) => x.name).sort(), ['code__echo', 'content__search', 'pay__create_invoice']);
  t.is(textOf(await client.callTool({ name: 'content__search', arguments: { text: 'q' } })), 'content:search:q');
  await client.close();
});

test.serial("members' prompts and resources, prefixed; resource URIs mapped reversibly", async (t) => {
  const client = new ClientV2({ name: 't', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers: auth() } }));
  t.deepEqual((await client.listPrompts()).prompts.map((p) => p.name), ['content__summarize']);
  const prompt = await client.getPrompt({ name: 'content__summarize', arguments: { topic: 'x' } });
  t.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'content: summarize x' });
  const resources = (await client.listResources()).resources;
  t.deepEqual(resources.map((r) => [r.name, r.uri]), [['content__guide', 'mcp-member://content/docs%3A%2F%2Fguide']]);
  const read = await client.readResource({ uri: resources[0]!.uri });
  t.like(read.contents[0], { uri: resources[0]!.uri, text: 'content guide' });
  const unknown = await client.readResource({ uri: 'docs://guide' }).then(() => null, (e: { code?: number }) => e);
  t.truthy(unknown, 'a URI the toolset did not hand out');
  await client.close();
});

test.serial('no credential: 401 with the toolset\'s RFC 9728 challenge; another owner: 404; an unknown session: 404', async (t) => {
  const init = (headers: Record<string, string>) => ({
    method: 'POST', headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  const anonymous = await fetch(url, init({}));
  t.is(anonymous.status, 401);
  t.regex(anonymous.headers.get('www-authenticate') ?? '', new RegExp(`resource_metadata=".*/.well-known/oauth-protected-resource/api/v1/toolsets/${TOOLSET}/mcp"`));
  t.is((await fetch(url, init(auth(OTHER)))).status, 404);
  t.is((await fetch(url, init({ ...auth(), 'mcp-session-id': 'no-such-session' }))).status, 404);
});

test.serial('Mcp-Name that disagrees with the body: 400', async (t) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...auth(), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'pay__create_invoice' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'code__echo', arguments: {} } }),
  });
  t.is(res.status, 400);
});

test.serial('a member that goes away mid-session: list_changed, its tools vanish, its call answers -32010 with state and reason', async (t) => {
  const client = new ClientV1({ name: 't', version: '1' });
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changed += 1;
  });
  await client.connect(new TransportV1(new URL(url), { requestInit: { headers: auth() } }));
  t.is((await client.listTools()).tools.length, 3);
  // A 2026-07-28 client hears it on its subscriptions/listen stream.
  let modernChanged = 0;
  const modern = new ClientV2({ name: 't', version: '1' }, { versionNegotiation: { mode: 'auto' }, listChanged: { tools: { autoRefresh: false, onChanged: () => { modernChanged += 1; } } } });
  await modern.connect(new TransportV2(new URL(url), { requestInit: { headers: auth() } }));
  await new Promise((r) => setTimeout(r, 300)); // the session's GET stream and the listen stream open
  table.set(IDS.content, { kind: 'not_connected', state: 'disconnected', owner: 'key:alice' });
  statuses.set(IDS.content, { state: 'disconnected', disconnect_reason: 'the MCP server refused the token (HTTP 401)', authorization_url: null });
  endpoint.memberChanged(IDS.content);
  for (let i = 0; i < 50 && changed === 0; i++) await new Promise((r) => setTimeout(r, 100));
  t.true(changed > 0, 'notifications/tools/list_changed');
  for (let i = 0; i < 50 && modernChanged === 0; i++) await new Promise((r) => setTimeout(r, 100));
  t.true(modernChanged > 0, 'the 2026-07-28 client heard it too');
  await modern.close();
  t.deepEqual((await client.listTools()).tools.map((x) => x.name).sort(), ['code__echo', 'pay__create_invoice']);
  const err = await client.callTool({ name: 'content__search', arguments: {} }).then(() => null, (e: { code?: number; data?: unknown }) => e);
  t.is(err?.code, -32010);
  t.deepEqual(err?.data, { connector_id: IDS.content, state: 'disconnected', disconnect_reason: 'the MCP server refused the token (HTTP 401)' });

  table.set(IDS.content, { kind: 'not_connected', state: 'auth_required', owner: 'key:alice' });
  statuses.set(IDS.content, { state: 'auth_required', disconnect_reason: null, authorization_url: 'http://127.0.0.1/authorize?request=x' });
  const waiting = await client.callTool({ name: 'content__search', arguments: {} }).then(() => null, (e: { code?: number; data?: unknown }) => e);
  t.like(waiting?.data, { state: 'auth_required', authorization_url: 'http://127.0.0.1/authorize?request=x' });
  await client.close();
  const eliciting = new ClientV1({ name: 't', version: '1' }, { capabilities: { elicitation: { url: {} } } });
  await eliciting.connect(new TransportV1(new URL(url), { requestInit: { headers: auth() } }));
  const elicit = await eliciting.callTool({ name: 'content__search', arguments: {} }).then(() => null, (e: { code?: number; data?: any }) => e);
  t.is(elicit?.code, -32042);
  t.is(elicit?.data?.elicitations?.[0]?.url, 'http://127.0.0.1/authorize?request=x');
  await eliciting.close();
  table.set(IDS.content, connectedTo(content.url, 'content-token'));
  endpoint.memberChanged(IDS.content);
});

test.serial("a 2025-11-25 session opens a member's upstream session only when it needs it, and closes it with its own", async (t) => {
  const recording = await startRecordingMcpServer({ requireToken: 'rec-token' });
  t.teardown(() => recording.close());
  table.set(RECORDING, connectedTo(recording.url, 'rec-token'));
  const sessionsUrl = url.replace(TOOLSET, SESSIONS_TOOLSET);
  const client = new ClientV1({ name: 't', version: '1' });
  const transport = new TransportV1(new URL(sessionsUrl), { requestInit: { headers: auth() } });
  await client.connect(transport);
  t.is(recording.requests.length, 0, 'no upstream request before the toolset needs the member');
  t.true((await client.listTools()).tools.some((x) => x.name === 'rec__echo'));
  t.is(textOf(await client.callTool({ name: 'rec__echo', arguments: { text: 'hello' } })), 'hello');
  const upstreamSessions = recording.sessionIds();
  t.is(upstreamSessions.length, 1, 'one upstream session for the toolset session');
  await transport.terminateSession();
  const deleted = await recording.waitForRequest((r) => r.method === 'DELETE');
  t.is(deleted.headers['mcp-session-id'], upstreamSessions[0]);
  t.is(deleted.headers.authorization, 'Bearer rec-token');
  await client.close();
});

test.serial("a member whose token the upstream refuses is refreshed through the registry, and the call goes on with the new token", async (t) => {
  const client = new ClientV2({ name: 't', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers: auth() } }));
  t.is(textOf(await client.callTool({ name: 'code__echo', arguments: { text: 'before' } })), 'before');
  code.setToken('code-token-2');
  nextTokens.set(IDS.code, 'code-token-2');
  t.is(textOf(await client.callTool({ name: 'code__echo', arguments: { text: 'after' } })), 'after');
  t.deepEqual(refreshes, ['sealed-code-token']);
  t.is(code.seenAuthorization.at(-1), 'Bearer code-token-2');
  await client.close();
});

test.serial('tools/list pages: a cursor walks the whole list, a bad cursor is refused', async (t) => {
  const big = await startToolsMcpServer({ name: 'big', tokens: { 'big-token': Array.from({ length: 250 }, (_, i) => `tool_${String(i).padStart(3, '0')}`) } });
  t.teardown(() => big.close());
  table.set(IDS.pay, connectedTo(big.url, 'big-token'));
  endpoint.memberChanged(IDS.pay);
  // The v1 client asks one page at a time.
  const paging = new ClientV1({ name: 't', version: '1' });
  await paging.connect(new TransportV1(new URL(url), { requestInit: { headers: auth() } }));
  const names: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await paging.listTools(cursor === undefined ? {} : { cursor });
    t.true(page.tools.length <= 100);
    names.push(...page.tools.map((x) => x.name));
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor);
  t.is(pages, 3);
  t.is(new Set(names).size, 252);
  const bad = await paging.listTools({ cursor: 'not-a-cursor' }).then(() => null, (e: { code?: number }) => e);
  t.is(bad?.code, -32602);
  await paging.close();
  // The 2026-07-28 client walks every page itself.
  const client = new ClientV2({ name: 't', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers: auth() } }));
  t.is((await client.listTools()).tools.length, 252, 'every page, aggregated');
  await client.close();
  table.set(IDS.pay, connectedTo(pay.url, 'pay-token'));
  endpoint.memberChanged(IDS.pay);
});
