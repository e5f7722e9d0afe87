// Managed stdio connectors on the local runtime (the embedded default), end to end through the
// API and the proxy, with real stdio MCP servers from npm.
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventually, filesContaining, startTestStack, type TestStack } from '../helpers/test-stack';
import { pidsWithEnv } from '../helpers/process-env';
import { SecretBox, secretContext } from '../../platform/secret-box';
import { connectorWorkflowId, routeQuery } from '../../workflows/messages';
import { historyPayloads } from '../helpers/history-values';

const require = createRequire(import.meta.url);
const entry = (pkg: string) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'dist/index.js');
const EVERYTHING = entry('@modelcontextprotocol/server-everything');
const MEMORY = entry('@modelcontextprotocol/server-memory');
const TOKEN = 'stdio-token-8d2b6e';
// Given, so that the test can open the gateway secret the workflow keeps sealed.
const KEY = randomBytes(32);

let stack: TestStack;

test.before(async () => {
  stack = await startTestStack({
    CONNECTOR__ENCRYPTION_KEY: KEY.toString('hex'),
    // Blocked as in a real deployment: the workloads listen on loopback and are reached through
    // the route the service created for them (managed), never exempted by their address.
    CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'true',
    // Every workload of this file must be ready within it, however busy the machine is: the
    // silent server's 504 waits it out.
    CONNECTOR__STDIO_READY_TIMEOUT_MS: '15000',
    CONNECTOR__PRESETS: JSON.stringify([
      { url: 'mcp+stdio://everything', metadata: { name: 'Everything', description: 'reference server' },
        stdio: { image: 'mcp/everything', command: [process.execPath], args: [EVERYTHING, 'stdio'], env: { PRESET_MARKER: 'everything-e2e', PRESET_VALUE: 'preset-env-42' }, access_token_env_name: 'EVERYTHING_TOKEN' } },
      // A key the connect supplies (server.json's secret environmentVariables): sealed, into the process env only.
      { url: 'mcp+stdio://everything-keyed', metadata: { name: 'Everything, keyed', description: 'reference server with a key' },
        stdio: { image: 'mcp/everything', command: [process.execPath], args: [EVERYTHING, 'stdio'], env: { PRESET_MARKER: 'keyed-e2e' },
          env_inputs: [{ name: 'EVERYTHING_API_KEY', required: true, description: 'the API key' }, { name: 'EVERYTHING_REGION', secret: false }] } },
      { url: 'mcp+stdio://memory', metadata: { name: 'Memory', description: 'knowledge graph' },
        stdio: { image: 'mcp/memory', command: [process.execPath], args: [MEMORY], env: { PRESET_MARKER: 'memory-e2e' } } },
      { url: 'mcp+stdio://silent', metadata: { name: 'Silent', description: 'never answers' },
        stdio: { image: 'busybox', command: [process.execPath], args: ['-e', 'setInterval(() => {}, 1000)'], env: { PRESET_MARKER: 'silent-e2e' } } },
      { url: 'mcp+stdio://imageonly', metadata: { name: 'Image only', description: 'no command' }, stdio: { image: 'mcp/something' } },
    ]),
  });
});

test.after.always(async () => {
  await stack?.stop();
});

async function connectStdio(url: string, body: Record<string, unknown> = {}) {
  const { body: c } = await stack.api('POST', '/api/v1/connectors', { url });
  const res = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, body);
  return { id: c.id as string, mcpUrl: c.mcp_url as string, res };
}

async function mcpClient(mcpUrl: string): Promise<Client> {
  const client = new Client({ name: 'stdio-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  return client;
}

test.serial('server-everything: connected, tools through the proxy, token and preset env injected, two sessions', async (t) => {
  const { id, mcpUrl, res } = await connectStdio('mcp+stdio://everything', { access_token: TOKEN });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(res.body.state, 'connected');
  t.false(res.text.includes(TOKEN));

  const a = await mcpClient(mcpUrl);
  const b = await mcpClient(mcpUrl);
  const tools = await a.listTools();
  t.true(tools.tools.some((tool) => tool.name === 'get-env'));
  const env = JSON.stringify((await a.callTool({ name: 'get-env', arguments: {} })).content);
  t.true(env.includes(TOKEN), 'the token is injected under access_token_env_name');
  t.true(env.includes('preset-env-42'), 'the preset env is injected');

  // Two sessions at once on one stdio server, each with its own answers and its own progress.
  const progressA: number[] = [];
  const progressB: number[] = [];
  const longTool = tools.tools.find((tool) => /long/i.test(tool.name))!.name;
  const [ra, rb] = await Promise.all([
    a.callTool({ name: longTool, arguments: { duration: 1, steps: 3 } }, undefined, { onprogress: (p) => progressA.push(p.progress) }),
    b.callTool({ name: 'echo', arguments: { message: 'only for b' } }, undefined, { onprogress: (p) => progressB.push(p.progress) }),
  ]);
  t.true(progressA.length >= 2, `a got its progress (${progressA})`);
  t.deepEqual(progressB, [], 'b got none of a\'s progress');
  t.regex(JSON.stringify(rb.content), /only for b/);
  t.notRegex(JSON.stringify(ra.content), /only for b/);
  await a.close();
  await b.close();

  // The workload's gateway serves the proxy only: the route holds its secret sealed.
  const route = await stack.temporal.workflow.getHandle(connectorWorkflowId(id)).query(routeQuery);
  const gatewaySecret = new SecretBox(KEY).open(route.gatewaySecret!, secretContext(id, 'gateway_secret'));
  const direct = await fetch(route.target!, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
  t.is(direct.status, 401, 'a local process going around the proxy is refused');

  t.true(pidsWithEnv('PRESET_MARKER=everything-e2e').length > 0);
  t.is((await stack.api('POST', `/api/v1/connectors/${id}/disconnect`)).status, 200);
  await eventually(async () => (pidsWithEnv('PRESET_MARKER=everything-e2e').length === 0 ? true : undefined), 10_000, 'no process after disconnect');
  t.deepEqual(pidsWithEnv('PRESET_MARKER=everything-e2e'), []);
  for (const secret of [TOKEN, 'preset-env-42', gatewaySecret]) t.deepEqual(filesContaining(stack.dataDir, secret), [], `no plaintext ${secret} at rest`);
});

test.serial('with private networks blocked, a loopback workload serves tools through its managed route; a remote server there is refused', async (t) => {
  t.true(stack.config.blockPrivateNetworks);
  const remote = await stack.api('POST', '/api/v1/connectors', { url: 'http://127.0.0.1:9/mcp' });
  t.is(remote.status, 422, 'the same address named by a caller is refused');
  t.regex(remote.body.detail, /loopback address, refused by CONNECTOR__BLOCK_PRIVATE_NETWORKS/);

  const { id, mcpUrl, res } = await connectStdio('mcp+stdio://memory');
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(res.body.state, 'connected');
  const client = await mcpClient(mcpUrl);
  t.true((await client.listTools()).tools.some((tool) => tool.name === 'create_entities'));
  const graph = await client.callTool({ name: 'read_graph', arguments: {} }); // reads only: the server's file is shared
  t.falsy(graph.isError);
  t.regex(JSON.stringify(graph.content), /entities/);
  await client.close();
  t.is((await stack.api('DELETE', `/api/v1/connectors/${id}`)).status, 202);
  await eventually(async () => (pidsWithEnv('PRESET_MARKER=memory-e2e').length === 0 ? true : undefined), 10_000, 'no process after delete');
});

test.serial('connect on a connected stdio connector with a new access_token puts the new token into the workload', async (t) => {
  const { id, mcpUrl, res } = await connectStdio('mcp+stdio://everything', { access_token: 'stdio-token-first' });
  t.is(res.status, 200, JSON.stringify(res.body));
  const envThrough = async () => {
    const client = await mcpClient(mcpUrl);
    const env = JSON.stringify((await client.callTool({ name: 'get-env', arguments: {} })).content);
    await client.close();
    return env;
  };
  t.true((await envThrough()).includes('stdio-token-first'));

  const again = await stack.api('POST', `/api/v1/connectors/${id}/connect`, { access_token: 'stdio-token-second' });
  t.is(again.status, 200, JSON.stringify(again.body));
  t.is(again.body.state, 'connected');
  const env = await envThrough();
  t.true(env.includes('stdio-token-second'), 'the workload has the new token');
  t.false(env.includes('stdio-token-first'), 'and no longer the old one');
  t.is((await stack.api('DELETE', `/api/v1/connectors/${id}`)).status, 202);
});

test.serial('a secret env value the preset declares is supplied at connect, seen by the server, and nowhere else in plaintext', async (t) => {
  const KEY_VALUE = 'env-input-key-7c41e9';
  const presets = await stack.api('GET', '/api/v1/connectors/presets');
  const keyed = presets.body.items.find((p: { url: string }) => p.url === 'mcp+stdio://everything-keyed');
  t.like(keyed.fields[0], { name: 'EVERYTHING_API_KEY', in: 'env', secret: true, required: true }, 'GET /presets asks for it');

  const missing = await connectStdio('mcp+stdio://everything-keyed');
  t.is(missing.res.status, 422, 'a required value not given');
  t.true(missing.res.body.errors.some((e: { path: string }) => e.path === 'env.EVERYTHING_API_KEY'), JSON.stringify(missing.res.body));
  const undeclared = await stack.api('POST', `/api/v1/connectors/${missing.id}/connect`, { env: { EVERYTHING_API_KEY: KEY_VALUE, NODE_OPTIONS: '--require=/tmp/x' } });
  t.is(undeclared.status, 422, 'a name the preset does not declare');
  t.true(undeclared.body.errors.some((e: { path: string }) => e.path === 'env.NODE_OPTIONS'));

  const res = await stack.api('POST', `/api/v1/connectors/${missing.id}/connect`, { env: { EVERYTHING_API_KEY: KEY_VALUE, EVERYTHING_REGION: 'eu-1' } });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(res.body.state, 'connected');
  const client = await mcpClient(missing.mcpUrl);
  const env = JSON.stringify((await client.callTool({ name: 'get-env', arguments: {} })).content);
  await client.close();
  t.true(env.includes(KEY_VALUE), 'the server has the key in its environment');
  t.true(env.includes('eu-1'));

  const record = await stack.api('GET', `/api/v1/connectors/${missing.id}`);
  const events = await stack.api('GET', `/api/v1/connectors/${missing.id}/events`);
  t.true(events.body.items.some((e: { reason: string }) => e.reason === 'connect requested (environment EVERYTHING_API_KEY, EVERYTHING_REGION)'), 'the audit names it');
  for (const answer of [presets, missing.res, undeclared, res, record, events]) t.false(answer.text.includes(KEY_VALUE), 'in no API answer');
  const history = JSON.stringify(await historyPayloads(stack.temporal, connectorWorkflowId(missing.id)));
  t.true(history.includes('"name":"EVERYTHING_API_KEY"'), 'the history holds it by name');
  t.false(history.includes(KEY_VALUE), 'its value sealed');
  t.deepEqual(filesContaining(stack.dataDir, KEY_VALUE), [], 'no plaintext at rest: logs, FerretDB, Temporal');
  t.is((await stack.api('DELETE', `/api/v1/connectors/${missing.id}`)).status, 202);
});

test.serial('server-memory: the stdio process killed from outside → disconnected with a reason; delete leaves no process', async (t) => {
  const { id, mcpUrl, res } = await connectStdio('mcp+stdio://memory');
  t.is(res.status, 200, JSON.stringify(res.body));
  const client = await mcpClient(mcpUrl);
  t.true((await client.listTools()).tools.some((tool) => tool.name === 'create_entities'));
  await client.close();

  const [pid] = pidsWithEnv('PRESET_MARKER=memory-e2e');
  t.truthy(pid);
  process.kill(pid!, 'SIGKILL');
  const lost = await eventually(async () => {
    const r = (await stack.api('GET', `/api/v1/connectors/${id}`)).body;
    return r.state === 'disconnected' ? r : undefined;
  }, 30_000, 'disconnected after the kill');
  t.regex(lost.disconnect_reason, /stdio server (exited|was killed)|signal|code/);
  // The proxy's route cache forgets the old route within about a second.
  const proxied = await eventually(async () => {
    const r = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    return r.status === 409 ? r : undefined;
  }, 5_000, 'the proxy to answer 409');
  t.is(proxied.status, 409);

  const again = await stack.api('POST', `/api/v1/connectors/${id}/connect`, {});
  t.is(again.status, 200);
  t.true(pidsWithEnv('PRESET_MARKER=memory-e2e').length > 0);
  t.is((await stack.api('DELETE', `/api/v1/connectors/${id}`)).status, 202);
  await eventually(async () => ((await stack.api('GET', `/api/v1/connectors/${id}`)).status === 404 ? true : undefined), 20_000, 'deleted');
  t.deepEqual(pidsWithEnv('PRESET_MARKER=memory-e2e'), []);
});

test.serial('a server that never becomes ready: 504 once the readiness limit passes, disconnected, nothing left', async (t) => {
  const { id, res } = await connectStdio('mcp+stdio://silent');
  t.is(res.status, 504, JSON.stringify(res.body));
  const record = (await stack.api('GET', `/api/v1/connectors/${id}`)).body;
  t.is(record.state, 'disconnected');
  t.regex(record.disconnect_reason, /ready/);
  t.deepEqual(pidsWithEnv('PRESET_MARKER=silent-e2e'), []);
});

test.serial('a preset without command cannot run locally: 422', async (t) => {
  const { id, res } = await connectStdio('mcp+stdio://imageonly');
  t.is(res.status, 422, JSON.stringify(res.body));
  t.regex(res.body.detail, /command/);
  t.is((await stack.api('GET', `/api/v1/connectors/${id}`)).body.state, 'disconnected');
});
