// A legacy HTTP+SSE server (2024-11-05) on the real stack (issue 41 item 6): a registry entry
// whose only remote is `sse` is a runnable preset; its connector (and one created with
// "transport": "sse") connects with a token, the connect's probe speaking SSE; SDK v1 and v2
// clients list and call its tools at the proxy's MCP path; the server saw the connector's token on
// the stream and on every POST, never the caller's key.
import test from 'ava';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { sha256Hex } from '../../callers/api-keys';
import { startLegacySseMcpServer, type LegacySseMcpServer } from '../fixtures/legacy-sse-mcp-server';
import { realServers, startRegistryServer, type RegistryServer } from '../fixtures/registry/registry-server';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';

const TOKEN = `sse-token-${crypto.randomUUID()}`;
const CALLER_KEY = `caller-key-${crypto.randomUUID()}`;
const as = { authorization: `Bearer ${CALLER_KEY}` };
const NAME = 'com.example/legacy-sse';
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;

let stack: TestStack;
let registry: RegistryServer;
let upstream: LegacySseMcpServer;

test.before(async () => {
  upstream = await startLegacySseMcpServer({ token: TOKEN });
  registry = await startRegistryServer();
  registry.publish({ ...realServers()['acme-analytics']!, name: NAME, packages: undefined, remotes: [{ type: 'sse', url: upstream.url }] });
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'alice', sha256: sha256Hex(CALLER_KEY) }]),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8',
    CONNECTOR__REGISTRY_URL: registry.url,
    CONNECTOR__REGISTRY_SERVERS: JSON.stringify([{ name: NAME }]),
    // `count` waits for an approver: an SSE server cannot hold a call, so it is refused, never made.
    CONNECTOR__APPROVAL_TOOLS: JSON.stringify([{ tools: 'count', approvers: ['key:alice'] }]),
  });
  await stack.temporal.workflow.execute('registrySyncWorkflow', { taskQueue: stack.config.temporal.taskQueue, workflowId: 'registry-sync-legacy-sse-test' });
});

test.after.always(async () => {
  await stack?.stop();
  await registry?.close();
  await upstream?.close();
});

async function connected(body: Record<string, unknown>): Promise<{ id: string; mcp_url: string }> {
  const created = await stack.api('POST', '/api/v1/connectors', body, as);
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const connect = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: TOKEN }, as);
  if (connect.body?.state !== 'connected') throw new Error(`connect: ${connect.status} ${connect.text}`);
  return connect.body;
}

test.serial('a registry sse remote is a runnable preset, and its connector speaks SSE and connects with a token', async (t) => {
  const preset = await eventually(async () => (await stack.api('GET', '/api/v1/connectors/presets', undefined, as)).body.items.find((p: any) => p.name === NAME), 60_000, 'the registry preset');
  t.like(preset, { source: 'registry', runnable: true, url: upstream.url });
  const connector = await connected({ url: preset.url });
  t.like(connector, { transport: 'sse', state: 'connected', preset: { url: upstream.url } });
  t.truthy((connector as { protocol_version?: string }).protocol_version, 'the probe completed a handshake over SSE');
});

test.serial('SDK v1 and v2 clients list and call the tools through the proxy; the server sees the connector\'s token only', async (t) => {
  const connector = await connected({ url: upstream.url, transport: 'sse', match_preset: false });
  t.like(connector, { transport: 'sse' });
  const before = upstream.seen.length;
  const v1 = new ClientV1({ name: 'legacy-sse-v1', version: '1' });
  await v1.connect(new TransportV1(new URL(connector.mcp_url), { requestInit: { headers: as } }));
  t.deepEqual((await v1.listTools()).tools.map((tool) => tool.name), ['echo', 'count', 'wait', 'roots']);
  t.is(textOf(await v1.callTool({ name: 'echo', arguments: { text: 'v1' } })), 'sse: v1');
  await v1.close();
  const v2 = new ClientV2({ name: 'legacy-sse-v2', version: '1' });
  await v2.connect(new TransportV2(new URL(connector.mcp_url), { requestInit: { headers: as } }));
  t.deepEqual((await v2.listTools()).tools.map((tool) => tool.name), ['echo', 'count', 'wait', 'roots']);
  t.is(textOf(await v2.callTool({ name: 'echo', arguments: { text: 'v2' } })), 'sse: v2');
  await v2.close();
  const proxied = upstream.seen.slice(before);
  t.true(proxied.some((s) => s.method === 'GET' && s.path === '/sse'), 'the proxy opened the stream');
  t.true(proxied.filter((s) => s.method === 'POST' && s.path === '/messages').length >= 6, 'and posted to the endpoint');
  for (const seen of upstream.seen) t.is(seen.authorization, `Bearer ${TOKEN}`, `${seen.method} ${seen.path}`);
  t.false(upstream.seen.some((s) => s.authorization?.includes(CALLER_KEY)), 'the caller\'s key never crossed');
  const calls = await eventually(async () => {
    const items = (await stack.api('GET', `/api/v1/connectors/${connector.id}/calls?limit=100`, undefined, as)).body.items as { rpc_method: string; rpc_name: string }[];
    return items.filter((c) => c.rpc_method === 'tools/call').length === 2 ? items : undefined;
  }, 20_000, 'the calls in the audit');
  t.deepEqual(calls.filter((c) => c.rpc_method === 'tools/call').map((c) => c.rpc_name), ['echo', 'echo'], 'the per-call audit holds them as for any connector');
});

test.serial('a toolset with an SSE connector as a member lists and calls its tools, for SDK v1 and v2 clients, through the bridge', async (t) => {
  const connector = await connected({ url: upstream.url, transport: 'sse', match_preset: false });
  const made = await stack.api('POST', '/api/v1/toolsets', { name: 'legacy-sse-members', members: [{ connector_id: connector.id, prefix: 'old' }] }, as);
  t.is(made.status, 201, made.text);
  const before = upstream.seen.length;
  const v1 = new ClientV1({ name: 'toolset-sse-v1', version: '1' });
  await v1.connect(new TransportV1(new URL(made.body.mcp_url), { requestInit: { headers: as } }));
  t.deepEqual((await v1.listTools()).tools.map((tool) => tool.name), ['old__echo', 'old__count', 'old__wait', 'old__roots']);
  t.is(textOf(await v1.callTool({ name: 'old__echo', arguments: { text: 'toolset v1' } })), 'sse: toolset v1');
  await v1.close();
  const v2 = new ClientV2({ name: 'toolset-sse-v2', version: '1' });
  await v2.connect(new TransportV2(new URL(made.body.mcp_url), { requestInit: { headers: as } }));
  t.deepEqual((await v2.listTools()).tools.map((tool) => tool.name), ['old__echo', 'old__count', 'old__wait', 'old__roots']);
  t.is(textOf(await v2.callTool({ name: 'old__echo', arguments: { text: 'toolset v2' } })), 'sse: toolset v2');
  await v2.close();
  const reached = upstream.seen.slice(before);
  t.true(reached.some((s) => s.method === 'GET' && s.path === '/sse'), 'the member was reached over its SSE stream');
  t.false(reached.some((s) => s.method === 'POST' && s.path !== '/messages'), 'never POSTed to as Streamable HTTP');
  for (const seen of reached) t.is(seen.authorization, `Bearer ${TOKEN}`, `${seen.method} ${seen.path}`);
});

test.serial('a tool held for approval is refused on an SSE connector, and the server never sees the call', async (t) => {
  const connector = await connected({ url: upstream.url, transport: 'sse', match_preset: false });
  const client = new ClientV2({ name: 'legacy-sse-held', version: '1' });
  await client.connect(new TransportV2(new URL(connector.mcp_url), { requestInit: { headers: as } }));
  const before = upstream.seen.length;
  const refused = await t.throwsAsync(client.callTool({ name: 'count', arguments: {} }));
  t.regex(String(refused?.message), /held for approval/);
  t.is(textOf(await client.callTool({ name: 'echo', arguments: { text: 'free' } })), 'sse: free', 'other tools still run');
  t.is(upstream.seen.slice(before).filter((s) => s.method === 'POST').length, 1, 'only the echo reached the server');
  await client.close();
});

test.serial('a connector to an SSE server without transport sse does not connect: the transport is the connector\'s word', async (t) => {
  const created = await stack.api('POST', '/api/v1/connectors', { url: upstream.url, match_preset: false }, as);
  t.is(created.status, 201);
  t.is(created.body.transport, undefined);
  const connect = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: TOKEN }, as);
  t.not(connect.body?.state, 'connected', connect.text);
  const refused = await stack.api('POST', '/api/v1/connectors', { url: 'mcp+stdio://x', transport: 'sse' }, as);
  t.is(refused.status, 422);
});
