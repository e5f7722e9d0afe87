// Toolsets on the real embedded stack, with real MCP servers (SDK v2 servers serving both eras,
// and an SDK v1 server that speaks 2025 only): the resource (owner-scoped, prefixes, 422s, merge
// patch, paging), and its MCP endpoint through the SDK's clients of both eras: three members
// behind one URL, prefixing, allow/deny, access per caller (API keys and a JWT role), a member
// disconnected (its tools vanish, its call answers -32010 with its reason), a member waiting for
// authorization (the URL, or -32042 for a client that declared URL elicitation), Mcp-Name
// checked against the body, unknown sessions, the audit, and a deleted connector leaving its toolsets.
import test from 'ava';
import { MongoClient } from 'mongodb';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { sha256Hex } from '../../callers/api-keys';
import { startJwtIssuer, type JwtIssuer } from '../fixtures/jwt-issuer';
import { startOidcServer, startProtectedMcpServer, type OidcServer, type ProtectedMcpServer } from '../fixtures/oauth';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { startToolsMcpServer, type ToolsMcpServer } from '../fixtures/tools-mcp-server';
import { valueOf } from '../helpers/prometheus-text';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';

const KEYS = { alice: 'alice-key-toolsets-1f2e', bob: 'bob-key-toolsets-3d4c', carol: 'carol-key-toolsets-5b6a', dave: 'dave-key-toolsets-7980' };
const OPS_KEY = 'ops-key-toolsets-admin-4e5f';
const as = (key: string) => ({ authorization: `Bearer ${key}` });

let stack: TestStack;
let idp: JwtIssuer;
let payments: ToolsMcpServer;
let content: ToolsMcpServer;
let code: TokenMcpServer;
let oidc: OidcServer;
let protectedServer: ProtectedMcpServer;
const ids = { payments: '', content: '', code: '' };

test.before(async () => {
  idp = await startJwtIssuer();
  payments = await startToolsMcpServer({ name: 'payments', tokens: { 'pay-token': ['create_invoice', 'refund', 'list_invoices'], 'pay-token-bob': ['bobs_only'] } });
  content = await startToolsMcpServer({ name: 'content', tokens: { 'content-token': ['search', 'get_page'] } });
  code = await startTokenMcpServer({ token: 'code-token' });
  oidc = await startOidcServer();
  protectedServer = await startProtectedMcpServer({ issuer: oidc.issuer, jwksUri: oidc.jwksUri });
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([
      ...Object.keys(KEYS).map((subject) => ({ subject, sha256: sha256Hex(KEYS[subject as keyof typeof KEYS]) })),
      { subject: 'ops', sha256: sha256Hex(OPS_KEY), admin: true },
    ]),
    CONNECTOR__AUTH_ISSUER: idp.issuer,
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
    CONNECTOR__RATE_LIMIT_PER_OWNER: 'off',
  });
  ids.payments = await connected(payments.url, 'pay-token', { name: 'Payments' });
  ids.content = await connected(content.url, 'content-token', { name: 'Content Hub' });
  ids.code = await connected(code.url, 'code-token', {});
});

test.after.always(async () => {
  await stack?.stop();
  await Promise.all([payments?.close(), content?.close(), code?.close(), protectedServer?.close(), oidc?.close(), idp?.close()]);
});

async function connected(url: string, token: string, metadata: Record<string, string>, key = KEYS.alice): Promise<string> {
  const created = await stack.api('POST', '/api/v1/connectors', { url, metadata }, as(key));
  if (created.status !== 201) throw new Error(`create: ${created.text}`);
  const connect = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: token }, as(key));
  if (connect.status !== 200 || connect.body.state !== 'connected') throw new Error(`connect: ${connect.text}`);
  return created.body.id;
}

async function createToolset(body: unknown, key = KEYS.alice) {
  const res = await stack.api('POST', '/api/v1/toolsets', body, as(key));
  return res;
}

const threeMembers = () => [
  { connector_id: ids.payments }, { connector_id: ids.content }, { connector_id: ids.code, prefix: 'code' },
];

async function v1Client(url: string, key: string, capabilities: Record<string, unknown> = {}) {
  const client = new ClientV1({ name: 'toolset-test-v1', version: '1.0.0' }, { capabilities });
  const transport = new TransportV1(new URL(url), { requestInit: { headers: as(key) } });
  await client.connect(transport);
  return { client, transport };
}

async function v2Client(url: string, key: string, capabilities: Record<string, unknown> = {}) {
  const client = new ClientV2({ name: 'toolset-test-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' }, capabilities });
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers: as(key) } }));
  return client;
}

const textOf = (result: unknown) => ((result as { content: { text: string }[] }).content[0]?.text);

test.serial('create: 201 with Location and mcp_url, default prefixes from the connectors\' names, GET and list owner-scoped', async (t) => {
  const res = await createToolset({ name: 'agent tools', members: threeMembers() });
  t.is(res.status, 201, res.text);
  t.is(res.headers.get('location'), `/api/v1/toolsets/${res.body.id}`);
  t.is(res.body.mcp_url, `${stack.baseUrl}/api/v1/toolsets/${res.body.id}/mcp`);
  t.deepEqual(res.body.members.map((m: { prefix: string }) => m.prefix), ['payments', 'content-hub', 'code']);
  t.deepEqual(res.body.members[0].tools, { allow: ['*'], deny: [] });
  t.is(res.body.created_by, 'key:alice');
  t.like((await stack.api('GET', `/api/v1/toolsets/${res.body.id}`, undefined, as(KEYS.alice))).body, { id: res.body.id, name: 'agent tools' });
  t.is((await stack.api('GET', `/api/v1/toolsets/${res.body.id}`, undefined, as(KEYS.bob))).status, 404, "another owner's toolset is unknown to bob");
  const bobs = await stack.api('GET', '/api/v1/toolsets', undefined, as(KEYS.bob));
  t.false(bobs.body.items.some((x: { id: string }) => x.id === res.body.id));
});

test.serial('422: a member bob may not see, a prefix used twice, a prefix out of [a-z0-9_-]{1,32}, an unknown field', async (t) => {
  const foreign = await createToolset({ name: 'x', members: [{ connector_id: ids.payments }] }, KEYS.bob);
  t.is(foreign.status, 422, foreign.text);
  t.is(foreign.body.errors[0].path, 'members.0.connector_id');
  const twice = await createToolset({ name: 'x', members: [{ connector_id: ids.payments, prefix: 'p' }, { connector_id: ids.content, prefix: 'p' }] });
  t.is(twice.status, 422);
  t.is(twice.body.errors[0].path, 'members.1.prefix');
  t.is((await createToolset({ name: 'x', members: [{ connector_id: ids.payments, prefix: 'Pay!' }] })).status, 422);
  t.is((await createToolset({ name: 'x', members: [{ connector_id: ids.payments, prefix: 'p'.repeat(33) }] })).status, 422);
  t.is((await createToolset({ name: 'x', members: [], extra: 1 })).status, 422);
  t.is((await createToolset({ name: 'x', members: [{ connector_id: 'not-an-id' }] })).status, 422);
});

test.serial('list pages like connectors; PATCH is a JSON merge patch; DELETE 204 leaves the connectors alone', async (t) => {
  const made = [];
  for (const name of ['page-a', 'page-b', 'page-c']) made.push((await createToolset({ name, members: [] }, KEYS.dave)).body.id);
  const first = await stack.api('GET', '/api/v1/toolsets?limit=2', undefined, as(KEYS.dave));
  t.is(first.status, 200);
  t.is(first.body.total_count, 3);
  t.true(first.body.has_more);
  const second = await stack.api('GET', `/api/v1/toolsets?limit=2&page_token=${first.body.next_page_token}`, undefined, as(KEYS.dave));
  // Creation order; toolsets made in the same millisecond go by id.
  t.deepEqual([...first.body.items, ...second.body.items].map((x: { id: string }) => x.id).sort(), [...made].sort());
  t.is(first.body.items.length, 2);
  t.false(second.body.has_more);
  t.is((await stack.api('GET', '/api/v1/toolsets?page_token=garbage', undefined, as(KEYS.dave))).status, 422);

  const id = made[0];
  const patched = await stack.api('PATCH', `/api/v1/toolsets/${id}`, JSON.stringify({ name: 'renamed', description: 'd' }), { ...as(KEYS.dave), 'content-type': 'application/merge-patch+json' });
  t.is(patched.status, 200, patched.text);
  t.like(patched.body, { name: 'renamed', description: 'd' });
  const cleared = await stack.api('PATCH', `/api/v1/toolsets/${id}`, JSON.stringify({ description: null }), { ...as(KEYS.dave), 'content-type': 'application/merge-patch+json' });
  t.like(cleared.body, { name: 'renamed', description: '' });
  t.is((await stack.api('PATCH', `/api/v1/toolsets/${id}`, { members: [{ connector_id: ids.payments }] }, as(KEYS.dave))).status, 422, "alice's connector is not dave's to add");
  t.is((await stack.api('PATCH', `/api/v1/toolsets/${id}`, { name: 'x' }, as(KEYS.bob))).status, 404);
  t.is((await stack.api('DELETE', `/api/v1/toolsets/${id}`, undefined, as(KEYS.bob))).status, 404);
  t.is((await stack.api('DELETE', `/api/v1/toolsets/${id}`, undefined, as(KEYS.dave))).status, 204);
  t.is((await stack.api('GET', `/api/v1/toolsets/${id}`, undefined, as(KEYS.dave))).status, 404);
});

test.serial('the OpenAPI document describes the toolsets', async (t) => {
  const doc = (await stack.api('GET', '/api/v1/openapi.json')).body;
  for (const path of ['/api/v1/toolsets', '/api/v1/toolsets/{id}', '/api/v1/toolsets/{id}/mcp', '/api/v1/toolsets/{id}/calls']) t.truthy(doc.paths[path], path);
  t.truthy(doc.paths['/api/v1/toolsets/{id}'].patch);
  t.truthy(doc.components.schemas.Toolset.properties.mcp_url);
});

test.serial('a 2025-11-25 SDK client lists and calls the tools of three connectors through one URL', async (t) => {
  const { body: toolset } = await createToolset({ name: 'three', members: threeMembers() });
  const { client, transport } = await v1Client(toolset.mcp_url, KEYS.alice);
  t.truthy(transport.sessionId, 'a session of the toolset');
  const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
  t.deepEqual(names, ['code__echo', 'content-hub__get_page', 'content-hub__search', 'payments__create_invoice', 'payments__list_invoices', 'payments__refund']);
  t.is(textOf(await client.callTool({ name: 'payments__create_invoice', arguments: { text: 'inv-1' } })), 'payments:create_invoice:inv-1');
  t.is(textOf(await client.callTool({ name: 'content-hub__search', arguments: { text: 'q' } })), 'content:search:q');
  t.is(textOf(await client.callTool({ name: 'code__echo', arguments: { text: 'hi' } })), 'hi');
  t.false(payments.seenAuthorization.some((a) => a === `Bearer ${KEYS.alice}`), "the caller's key never goes upstream");
  await transport.terminateSession();
  await client.close();
  const stale = await fetch(toolset.mcp_url, {
    method: 'POST', headers: { ...as(KEYS.alice), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId ?? 'x', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  t.is(stale.status, 404, 'an ended (unknown) session');
});

test.serial('a 2026-07-28 SDK client lists and calls the tools of three connectors through one URL', async (t) => {
  const { body: toolset } = await createToolset({ name: 'three modern', members: threeMembers() });
  const client = await v2Client(toolset.mcp_url, KEYS.alice);
  t.is(client.getNegotiatedProtocolVersion(), '2026-07-28');
  const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
  t.deepEqual(names, ['code__echo', 'content-hub__get_page', 'content-hub__search', 'payments__create_invoice', 'payments__list_invoices', 'payments__refund']);
  t.is(textOf(await client.callTool({ name: 'payments__refund', arguments: { text: 'r' } })), 'payments:refund:r');
  t.is(textOf(await client.callTool({ name: 'content-hub__get_page', arguments: { text: 'p' } })), 'content:get_page:p');
  t.is(textOf(await client.callTool({ name: 'code__echo', arguments: { text: 'modern' } })), 'modern');
  await client.close();
});

test.serial("allow/deny over the member's own names: a denied tool is neither listed nor callable", async (t) => {
  const { body: toolset } = await createToolset({ name: 'filtered', members: [{ connector_id: ids.payments, prefix: 'pay', tools: { allow: ['*invoice*', 'refund'], deny: ['refund'] } }] });
  const { client } = await v1Client(toolset.mcp_url, KEYS.alice);
  t.deepEqual((await client.listTools()).tools.map((x) => x.name).sort(), ['pay__create_invoice', 'pay__list_invoices']);
  const refused = await client.callTool({ name: 'pay__refund', arguments: {} }).then(() => null, (err: { code?: number }) => err);
  t.is(refused?.code, -32602);
  await client.close();
});

test.serial('access per caller: an API key granted some tools sees and calls only those; a key no rule names gets 404; no credential 401 with the challenge', async (t) => {
  const { body: toolset } = await createToolset({
    name: 'governed', members: threeMembers(),
    access: [{ callers: ['key:carol'], allow: ['payments__list_*', 'code__*'] }, { callers: ['role:analyst'], allow: ['content-hub__search'] }],
  });
  const { client } = await v1Client(toolset.mcp_url, KEYS.carol);
  t.deepEqual((await client.listTools()).tools.map((x) => x.name).sort(), ['code__echo', 'payments__list_invoices']);
  t.is(textOf(await client.callTool({ name: 'payments__list_invoices', arguments: {} })), 'payments:list_invoices:');
  const denied = await client.callTool({ name: 'payments__refund', arguments: {} }).then(() => null, (err: { code?: number }) => err);
  t.is(denied?.code, -32602, 'decided on the body\'s tool name');
  await client.close();

  const modern = await v2Client(toolset.mcp_url, KEYS.carol);
  t.deepEqual((await modern.listTools()).tools.map((x) => x.name).sort(), ['code__echo', 'payments__list_invoices']);
  await modern.close();

  const jwt = await idp.sign({ sub: 'ann', roles: ['analyst'], aud: stack.baseUrl });
  const analyst = await v2Client(toolset.mcp_url, jwt);
  t.deepEqual((await analyst.listTools()).tools.map((x) => x.name), ['content-hub__search']);
  await analyst.close();

  const post = (headers: Record<string, string>) => fetch(toolset.mcp_url, {
    method: 'POST', headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
  });
  t.is((await post(as(KEYS.dave))).status, 404);
  const anonymous = await post({});
  t.is(anonymous.status, 401);
  t.is(anonymous.headers.get('www-authenticate'), `Bearer resource_metadata="${stack.baseUrl}/.well-known/oauth-protected-resource/api/v1/toolsets/${toolset.id}/mcp", scope="openid"`, 'the same challenge as a connector\'s MCP path, naming CONNECTOR__AUTH_SCOPES');
  const metadata = await stack.api('GET', `/.well-known/oauth-protected-resource/api/v1/toolsets/${toolset.id}/mcp`);
  t.is(metadata.body.resource, toolset.mcp_url);
  t.deepEqual(metadata.body.scopes_supported, ['openid']);
});

test.serial('a tools/call whose Mcp-Name disagrees with the body is refused with 400 before anything goes upstream', async (t) => {
  const { body: toolset } = await createToolset({ name: 'headers', members: threeMembers() });
  const before = payments.seenAuthorization.length;
  const res = await fetch(toolset.mcp_url, {
    method: 'POST',
    headers: { ...as(KEYS.alice), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'payments__list_invoices' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'payments__refund', arguments: {} } }),
  });
  t.is(res.status, 400, await res.text());
  t.is(payments.seenAuthorization.length, before);
});

test.serial('the lists are never shared between owners: bob\'s connector to the same server lists what bob\'s token sees', async (t) => {
  const bobsConnector = await connected(payments.url, 'pay-token-bob', { name: 'Payments' }, KEYS.bob);
  const { body: alices } = await createToolset({ name: 'alice pay', members: [{ connector_id: ids.payments }] });
  const { body: bobs } = await createToolset({ name: 'bob pay', members: [{ connector_id: bobsConnector }] }, KEYS.bob);
  const a = await v2Client(alices.mcp_url, KEYS.alice);
  const b = await v2Client(bobs.mcp_url, KEYS.bob);
  t.deepEqual((await a.listTools()).tools.map((x) => x.name).sort(), ['payments__create_invoice', 'payments__list_invoices', 'payments__refund']);
  t.deepEqual((await b.listTools()).tools.map((x) => x.name), ['payments__bobs_only']);
  t.deepEqual((await a.listTools()).tools.map((x) => x.name).sort(), ['payments__create_invoice', 'payments__list_invoices', 'payments__refund']);
  await a.close();
  await b.close();
});

test.serial('a member waiting for authorization: its call carries the URL to authorize it, as -32010 or, to a client that declared URL elicitation, -32042', async (t) => {
  const { body: c } = await stack.api('POST', '/api/v1/connectors', { url: protectedServer.url, metadata: { name: 'Docs' } }, as(KEYS.alice));
  const connect = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, {}, as(KEYS.alice));
  t.is(connect.body.state, 'auth_required', connect.text);
  const url = connect.body.auth_request.authorization_endpoint;
  const { body: toolset } = await createToolset({ name: 'waiting', members: [{ connector_id: c.id }, { connector_id: ids.payments }] });
  const { client } = await v1Client(toolset.mcp_url, KEYS.alice);
  t.false((await client.listTools()).tools.some((x) => x.name.startsWith('docs__')), 'a member not connected lists nothing');
  const err = await client.callTool({ name: 'docs__anything', arguments: {} }).then(() => null, (e: { code?: number; data?: any }) => e);
  t.is(err?.code, -32010);
  t.like(err?.data, { connector_id: c.id, state: 'auth_required', authorization_url: url });
  await client.close();
  const { client: eliciting } = await v1Client(toolset.mcp_url, KEYS.alice, { elicitation: { url: {} } });
  const elicit = await eliciting.callTool({ name: 'docs__anything', arguments: {} }).then(() => null, (e: { code?: number; data?: any }) => e);
  t.is(elicit?.code, -32042);
  t.is(elicit?.data?.elicitations?.[0]?.url, url);
  await eliciting.close();

  // A grantee (bob, granted the member's tools) learns the state and that the owner must reconnect
  // it: never the URL, never -32042 (not even when his client declared URL elicitation), never a reason.
  const granted = await stack.api('PATCH', `/api/v1/toolsets/${toolset.id}`, { access: [{ callers: ['key:bob'], allow: ['docs__*'] }] }, as(KEYS.alice));
  t.is(granted.status, 200, granted.text);
  const { client: grantee } = await v1Client(toolset.mcp_url, KEYS.bob, { elicitation: { url: {} } });
  const refused = await grantee.callTool({ name: 'docs__anything', arguments: {} }).then(() => null, (e: { code?: number; message?: string; data?: any }) => e);
  t.is(refused?.code, -32010);
  t.deepEqual(refused?.data, { connector_id: c.id, state: 'auth_required' });
  t.regex(refused?.message ?? '', /owner must reconnect it/);
  t.false(JSON.stringify(refused).includes(url), 'no authorization URL for a grantee');
  await grantee.close();
  const modernGrantee = await v2Client(toolset.mcp_url, KEYS.bob, { elicitation: { url: {} } });
  const modernRefused = await modernGrantee.callTool({ name: 'docs__anything', arguments: {} }).then(() => null, (e: unknown) => e);
  t.false(JSON.stringify(modernRefused).includes(url), 'nor at 2026-07-28');
  t.regex(JSON.stringify(modernRefused), /-32010|owner must reconnect/);
  await modernGrantee.close();
});

test.serial("a member's owner is read from its workflow: a created_by rewritten in the database lets no toolset use another owner's token", async (t) => {
  const bobs = await connected(payments.url, 'pay-token-bob', { name: 'Bob Pay' }, KEYS.bob);
  // What a tenant who can write the database would do: claim bob's connector, and put it in a
  // toolset of alice's, past the API.
  const mongo = new MongoClient(stack.mongoUri);
  t.teardown(() => mongo.close());
  const db = mongo.db('connector_registry');
  t.is((await db.collection('connectors').updateOne({ _id: bobs as never }, { $set: { created_by: 'key:alice' } })).matchedCount, 1);
  const toolsetId = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
  const now = new Date().toISOString();
  await db.collection('toolsets').insertOne({
    _id: toolsetId as never, name: 'stolen', description: '', created_by: 'key:alice', created_at: now, updated_at: now, access: [],
    members: [{ connector_id: bobs, prefix: 'b', tools: { allow: ['*'], deny: [] } }, { connector_id: ids.payments, prefix: 'mine', tools: { allow: ['*'], deny: [] } }],
  });
  const url = `${stack.baseUrl}/api/v1/toolsets/${toolsetId}/mcp`;
  const seen = payments.seenAuthorization.length;
  const modern = await v2Client(url, KEYS.alice);
  const names = (await modern.listTools()).tools.map((x) => x.name);
  t.false(names.some((n) => n.startsWith('b__')), "bob's connector lists nothing to alice's toolset");
  t.true(names.includes('mine__list_invoices'), "alice's own member still does");
  const err = await modern.callTool({ name: 'b__bobs_only', arguments: {} }).then(() => null, (e: { code?: number }) => e);
  t.is(err?.code, -32602, 'as unknown as a tool that does not exist');
  await modern.close();
  const { client: legacy } = await v1Client(url, KEYS.alice);
  const legacyErr = await legacy.callTool({ name: 'b__bobs_only', arguments: {} }).then(() => null, (e: { code?: number }) => e);
  t.is(legacyErr?.code, -32602);
  await legacy.close();
  t.false(payments.seenAuthorization.slice(seen).includes('Bearer pay-token-bob'), "bob's token never went upstream for alice");
});

test.serial('a member disconnected mid-session: its tools vanish, list_changed is sent, its call answers -32010 with its reason', async (t) => {
  const id = await connected(content.url, 'content-token', { name: 'Wiki' });
  const { body: toolset } = await createToolset({ name: 'mid-session', members: [{ connector_id: id }, { connector_id: ids.code, prefix: 'code' }] });
  let changed = 0;
  const { client } = await v1Client(toolset.mcp_url, KEYS.alice);
  client.setNotificationHandler((await import('@modelcontextprotocol/sdk/types.js')).ToolListChangedNotificationSchema, () => {
    changed += 1;
  });
  t.true((await client.listTools()).tools.some((x) => x.name === 'wiki__search'));
  await new Promise((r) => setTimeout(r, 300)); // the session's GET stream opens
  t.is((await stack.api('POST', `/api/v1/connectors/${id}/disconnect`, {}, as(KEYS.alice))).status, 200);
  await eventually(async () => (changed > 0 ? true : undefined), 10_000, 'notifications/tools/list_changed');
  t.deepEqual((await client.listTools()).tools.map((x) => x.name), ['code__echo']);
  const err = await client.callTool({ name: 'wiki__search', arguments: {} }).then(() => null, (e: { code?: number; data?: any }) => e);
  t.is(err?.code, -32010);
  t.like(err?.data, { connector_id: id, state: 'disconnected' });
  t.true('disconnect_reason' in (err?.data ?? {}));
  await client.close();
});

test.serial('the calls through a toolset are audited under it, naming the member (and under the member, naming the toolset)', async (t) => {
  const { body: toolset } = await createToolset({ name: 'audited', members: threeMembers() });
  const client = await v2Client(toolset.mcp_url, KEYS.alice);
  await client.callTool({ name: 'payments__list_invoices', arguments: {} });
  await client.close();
  const calls = await eventually(async () => {
    const res = await stack.api('GET', `/api/v1/toolsets/${toolset.id}/calls?method=tools/call`, undefined, as(KEYS.alice));
    return res.body.items.length > 0 ? res.body.items : undefined;
  }, 15_000, 'the toolset call in the audit');
  t.like(calls[0], { rpc_name: 'payments__list_invoices', caller: 'key:alice', toolset_id: toolset.id, member_id: ids.payments, status: 200 });
  const memberCalls = await eventually(async () => {
    const res = await stack.api('GET', `/api/v1/connectors/${ids.payments}/calls?method=tools/call`, undefined, as(KEYS.alice));
    const found = res.body.items.filter((c: { toolset_id?: string }) => c.toolset_id === toolset.id);
    return found.length > 0 ? found : undefined;
  }, 15_000, 'the member call in the audit');
  t.is(memberCalls[0].member_id, ids.payments);
  const metrics = await stack.api('GET', '/metrics', undefined, as(OPS_KEY));
  t.is(valueOf(metrics.text, 'mcp_toolset_requests_total', { toolset_id: toolset.id, member_id: ids.payments, rpc_method: 'tools/call', status: '200' }), 1, 'the metrics name the toolset and the member');
  t.is((await stack.api('GET', `/api/v1/toolsets/${toolset.id}/calls`, undefined, as(KEYS.bob))).status, 404);
});

test.serial('deleting a connector removes it from every toolset', async (t) => {
  const id = await connected(content.url, 'content-token', { name: 'Gone' });
  const one = (await createToolset({ name: 'one', members: [{ connector_id: id }, { connector_id: ids.code, prefix: 'code' }] })).body;
  const two = (await createToolset({ name: 'two', members: [{ connector_id: id }] })).body;
  t.is((await stack.api('DELETE', `/api/v1/connectors/${id}`, undefined, as(KEYS.alice))).status, 202);
  await eventually(async () => ((await stack.api('GET', `/api/v1/connectors/${id}`, undefined, as(KEYS.alice))).status === 404 ? true : undefined), 20_000, 'the connector gone');
  t.deepEqual((await stack.api('GET', `/api/v1/toolsets/${one.id}`, undefined, as(KEYS.alice))).body.members.map((m: { connector_id: string }) => m.connector_id), [ids.code]);
  t.deepEqual((await stack.api('GET', `/api/v1/toolsets/${two.id}`, undefined, as(KEYS.alice))).body.members, []);
});
