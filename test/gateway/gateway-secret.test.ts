// A gateway started with a secret serves only requests that carry it (the proxy's): without it,
// or with a wrong one, MCP requests get 401 with a JSON-RPC error body and reach no session;
// /healthz stays open for the readiness probe.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GATEWAY_SECRET_HEADER } from '../../contract/gateway-secret';
import { startGateway, type Gateway } from '../../gateway/start-gateway';
import { INITIALIZE } from './support/clients';
import { everythingSource, quietLogger } from './support/stdio-servers';

const SECRET = randomBytes(32).toString('base64url');
let gateway: Gateway;

test.before(async () => {
  gateway = await startGateway({ source: everythingSource(), port: 0, logger: quietLogger, secret: SECRET });
  await gateway.ready;
});

test.after.always(async () => {
  await gateway?.close();
});

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

async function connectWith(headers: Record<string, string>): Promise<{ client: Client; sessionId: string }> {
  const client = new Client({ name: 'secret-test', version: '1.0.0' });
  client.onerror = () => undefined;
  const transport = new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers } });
  await client.connect(transport);
  return { client, sessionId: transport.sessionId! };
}

const unauthorized = { jsonrpc: '2.0', error: { code: -32000, message: 'Unauthorized: only the connector registry may use this gateway' }, id: null };

test.serial('an initialize without the secret, or with a wrong one, is refused with 401 and opens no session', async (t) => {
  const wrong: Record<string, string>[] = [
    {},
    { [GATEWAY_SECRET_HEADER]: '' },
    { [GATEWAY_SECRET_HEADER]: randomBytes(32).toString('base64url') },
    { [GATEWAY_SECRET_HEADER]: SECRET.slice(0, -1) },
    { [GATEWAY_SECRET_HEADER]: `${SECRET}x` },
    { authorization: `Bearer ${SECRET}` },
  ];
  for (const headers of wrong) {
    const response = await post(INITIALIZE, headers);
    t.is(response.status, 401, JSON.stringify(headers));
    t.deepEqual(await response.json(), unauthorized);
  }
  t.is((await fetch(gateway.url)).status, 401, 'GET (the server-to-client stream) too');
  t.is((await fetch(gateway.url, { method: 'DELETE' })).status, 401, 'DELETE too');
  t.is(gateway.sessions().length, 0);
  await t.throwsAsync(connectWith({}), undefined, 'a real MCP client without the secret gets nowhere');
});

test.serial('with the secret an MCP client is served; a session id alone does not let a stranger in', async (t) => {
  const { client, sessionId } = await connectWith({ [GATEWAY_SECRET_HEADER]: SECRET });
  t.true((await client.listTools()).tools.some((tool) => tool.name === 'echo'));
  const hijack = await post({ jsonrpc: '2.0', id: 9, method: 'tools/list' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' });
  t.is(hijack.status, 401);
  t.deepEqual(await hijack.json(), unauthorized);
  await client.close();
});

test.serial('/healthz stays open for the readiness probe', async (t) => {
  const health = await fetch(new URL('/healthz', gateway.url));
  t.is(health.status, 200);
  t.like(await health.json(), { status: 'ok', state: 'ready' });
});
