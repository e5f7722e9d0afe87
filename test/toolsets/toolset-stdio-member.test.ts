// A toolset whose members are a managed stdio preset (the MCP reference server `everything`, run by
// the local runtime behind its gateway) and a remote MCP server, on the real embedded stack: the
// SDK clients of both eras list the union under both prefixes and call a tool of each through the
// toolset's one URL; the stdio workload gets the member's own token, never the caller's key.
import path from 'node:path';
import { createRequire } from 'node:module';
import test from 'ava';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { sha256Hex } from '../../callers/api-keys';
import { startToolsMcpServer, type ToolsMcpServer } from '../fixtures/tools-mcp-server';
import { pidsWithEnv } from '../helpers/process-env';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';

const require = createRequire(import.meta.url);
const EVERYTHING = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const KEY = 'alice-key-toolset-stdio-6a7b';
const STDIO_TOKEN = 'stdio-member-token-2c9e';
const MARKER = 'toolset-stdio-member';
const as = { authorization: `Bearer ${KEY}` };

let stack: TestStack;
let payments: ToolsMcpServer;
let mcpUrl = '';
let stdioId = '';

test.before(async () => {
  payments = await startToolsMcpServer({ name: 'payments', tokens: { 'pay-token': ['create_invoice', 'refund'] } });
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'alice', sha256: sha256Hex(KEY) }]),
    // The remote member listens on loopback; the stdio member is reached through its managed route.
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
    // One caller: the local runtime may run the server without a uid of its own.
    CONNECTOR__STDIO_SINGLE_TENANT: 'true',
    CONNECTOR__STDIO_READY_TIMEOUT_MS: '30000',
    CONNECTOR__RATE_LIMIT_PER_OWNER: 'off',
    CONNECTOR__PRESETS: JSON.stringify([
      { url: 'mcp+stdio://everything', metadata: { name: 'Everything', description: 'reference server' },
        stdio: { image: 'mcp/everything', command: [process.execPath], args: [EVERYTHING, 'stdio'], env: { PRESET_MARKER: MARKER }, access_token_env_name: 'EVERYTHING_TOKEN' } },
    ]),
  });
  const stdio = await connected('mcp+stdio://everything', STDIO_TOKEN);
  stdioId = stdio;
  const remote = await connected(payments.url, 'pay-token', { name: 'Payments' });
  const toolset = await stack.api('POST', '/api/v1/toolsets', { name: 'stdio and remote', members: [{ connector_id: stdio }, { connector_id: remote, prefix: 'pay' }] }, as);
  if (toolset.status !== 201) throw new Error(`toolset: ${toolset.text}`);
  mcpUrl = toolset.body.mcp_url;
});

test.after.always(async () => {
  await stack?.stop();
  await payments?.close();
});

/** Without metadata, a preset's connector takes the preset's (its name gives the default prefix). */
async function connected(url: string, token: string, metadata?: Record<string, string>): Promise<string> {
  const created = await stack.api('POST', '/api/v1/connectors', { url, ...(metadata ? { metadata } : {}) }, as);
  if (created.status !== 201) throw new Error(`create: ${created.text}`);
  const connect = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: token }, as);
  if (connect.status !== 200 || connect.body.state !== 'connected') throw new Error(`connect: ${connect.text}`);
  return created.body.id;
}

const textOf = (result: unknown) => JSON.stringify((result as { content: unknown }).content);

/** The names under each prefix: the stdio member's are the reference server's, the remote's the fixture's. */
function checkUnion(t: { true: (v: boolean, m?: string) => void; deepEqual: (a: unknown, b: unknown, m?: string) => void }, names: string[]) {
  t.true(names.includes('everything__echo'), `the stdio member's echo under its slug (${names})`);
  t.true(names.includes('everything__get-env'));
  t.deepEqual(names.filter((n) => n.startsWith('pay__')).sort(), ['pay__create_invoice', 'pay__refund'], 'the remote member under its prefix');
  t.deepEqual(names.filter((n) => !n.startsWith('pay__') && !n.startsWith('everything__')), [], 'no tool without a member prefix');
}

test.serial('the stdio preset runs as a workload of its own', (t) => {
  t.true(pidsWithEnv(`PRESET_MARKER=${MARKER}`).length > 0);
});

test.serial('a 2026-07-28 SDK client lists the union of a stdio and a remote member and calls a tool of each', async (t) => {
  const client = new ClientV2({ name: 'toolset-stdio-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(new URL(mcpUrl), { requestInit: { headers: as } }));
  t.is(client.getNegotiatedProtocolVersion(), '2026-07-28');
  checkUnion(t, (await client.listTools()).tools.map((tool) => tool.name));
  t.regex(textOf(await client.callTool({ name: 'everything__echo', arguments: { message: 'through the toolset' } })), /through the toolset/);
  t.regex(textOf(await client.callTool({ name: 'pay__create_invoice', arguments: { text: 'inv-7' } })), /payments:create_invoice:inv-7/);
  const env = textOf(await client.callTool({ name: 'everything__get-env', arguments: {} }));
  t.true(env.includes(STDIO_TOKEN), "the workload has the member's own token");
  t.false(env.includes(KEY), "and never the caller's key");
  await client.close();
});

test.serial('a 2025-11-25 SDK client (v1) does the same in a session of the toolset', async (t) => {
  const client = new ClientV1({ name: 'toolset-stdio-v1', version: '1.0.0' });
  const transport = new TransportV1(new URL(mcpUrl), { requestInit: { headers: as } });
  await client.connect(transport);
  t.truthy(transport.sessionId, 'a session of the toolset');
  checkUnion(t, (await client.listTools()).tools.map((tool) => tool.name));
  t.regex(textOf(await client.callTool({ name: 'everything__echo', arguments: { message: 'v1 through the toolset' } })), /v1 through the toolset/);
  t.regex(textOf(await client.callTool({ name: 'pay__refund', arguments: { text: 'r-1' } })), /payments:refund:r-1/);
  t.false(payments.seenAuthorization.includes(`Bearer ${KEY}`), "the caller's key never goes upstream");
  await transport.terminateSession();
  await client.close();
});

test.serial('the calls are audited under the toolset, naming the stdio member', async (t) => {
  const toolsetId = new URL(mcpUrl).pathname.split('/')[4]!;
  const calls = await eventually(async () => {
    const res = await stack.api('GET', `/api/v1/toolsets/${toolsetId}/calls?method=tools/call&limit=100`, undefined, as);
    if (res.status !== 200) throw new Error(`calls: ${res.text}`);
    const echo = res.body.items?.filter((c: { rpc_name: string }) => c.rpc_name === 'everything__echo') ?? [];
    return echo.length >= 2 ? echo : undefined;
  }, 20_000, 'the stdio member calls in the audit');
  t.true(calls.every((c: { status: number; member_id: string }) => c.status === 200 && c.member_id === stdioId));
});
