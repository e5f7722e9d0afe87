// Private networks with caller authentication on (a real deployment): blocked by default, let
// through by CONNECTOR__ALLOWED_PRIVATE_NETWORKS, and a token never sent over plain http where it
// may not travel. Traffic goes to loopback only; every other address here is refused before a
// packet could leave (192.0.2.0/24 is a reserved range the address guard always refuses).
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ConnectorCommands } from '../../api/connector-commands';
import { sha256Hex } from '../../callers/api-keys';
import { parseKey, SecretBox } from '../../platform/secret-box';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { startTestStack, type TestStack } from '../helpers/test-stack';

const TOKEN = 'private-net-token-6a1f';
const ALICE = 'alice-key-private-net-93c1';
const ENCRYPTION_KEY = crypto.randomBytes(32).toString('hex');
const asAlice = { authorization: `Bearer ${ALICE}` };

let upstream: TokenMcpServer;
let blocked: TestStack; // callers authenticated, nothing listed
let listed: TestStack; // callers authenticated, 127.0.0.0/8 listed

test.before(async () => {
  upstream = await startTokenMcpServer({ token: TOKEN });
  const callers = {
    CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'alice', sha256: sha256Hex(ALICE) }]),
    CONNECTOR__ENCRYPTION_KEY: ENCRYPTION_KEY,
    // Loopback servers answer within it however busy the machine is.
    CONNECTOR__CONNECT_TIMEOUT_MS: '15000',
  };
  [blocked, listed] = await Promise.all([
    startTestStack(callers),
    startTestStack({ ...callers, CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8' }),
  ]);
});

test.after.always(async () => {
  await Promise.all([blocked?.stop(), listed?.stop()]);
  await upstream?.close();
});

/**
 * A connector whose URL the API's create would refuse today, made the way the API makes one:
 * as if it was created before private networks were blocked, or its name resolved elsewhere
 * then. Connect must hold the line on its own.
 */
async function createdBehindTheApi(stack: TestStack, url: string): Promise<string> {
  const commands = new ConnectorCommands({
    temporal: stack.temporal,
    taskQueue: stack.config.temporal.taskQueue,
    secrets: new SecretBox(parseKey(ENCRYPTION_KEY)),
    settings: {
      historyLimit: stack.config.historyLimit, authTimeoutSeconds: stack.config.authTimeoutSeconds, connectTimeoutMs: stack.config.connectTimeoutMs,
      stdioReadyTimeoutMs: stack.config.stdio.readyTimeoutMs, refreshSkewSeconds: stack.config.refreshSkewSeconds,
    },
  });
  return (await commands.create({ url, createdBy: 'key:alice', createdByName: 'alice' })).id;
}

const connect = (stack: TestStack, id: string, body: Record<string, unknown>) => stack.api('POST', `/api/v1/connectors/${id}/connect`, body, asAlice);
const record = async (stack: TestStack, id: string) => (await stack.api('GET', `/api/v1/connectors/${id}`, undefined, asAlice)).body;

test('with callers authenticated, a loopback MCP server is refused by default: at create, and at connect without contacting it', async (t) => {
  t.true(blocked.config.blockPrivateNetworks, 'on by default once callers are authenticated');
  const untouched = await startTokenMcpServer({ token: TOKEN }); // its own: other tests here run at the same time
  t.teardown(() => untouched.close());
  const created = await blocked.api('POST', '/api/v1/connectors', { url: untouched.url }, asAlice);
  t.is(created.status, 422);
  t.regex(created.body.detail, /127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback address, refused by CONNECTOR__BLOCK_PRIVATE_NETWORKS/);

  const id = await createdBehindTheApi(blocked, untouched.url);
  const refused = await connect(blocked, id, { access_token: TOKEN });
  t.is(refused.status, 502, JSON.stringify(refused.body));
  t.regex(refused.body.detail, /loopback address, refused by CONNECTOR__BLOCK_PRIVATE_NETWORKS/);
  const after = await record(blocked, id);
  t.is(after.state, 'disconnected');
  t.regex(after.disconnect_reason, /loopback address, refused by CONNECTOR__BLOCK_PRIVATE_NETWORKS/);
  t.deepEqual(untouched.seenAuthorization, [], 'the MCP server was never contacted');
});

test('CONNECTOR__ALLOWED_PRIVATE_NETWORKS=127.0.0.0/8 lets the same server through: created, connected, tools served', async (t) => {
  t.true(listed.config.blockPrivateNetworks);
  const created = await listed.api('POST', '/api/v1/connectors', { url: upstream.url }, asAlice);
  t.is(created.status, 201, JSON.stringify(created.body));
  const connected = await connect(listed, created.body.id, { access_token: TOKEN });
  t.is(connected.status, 200, JSON.stringify(connected.body));
  t.is(connected.body.state, 'connected');

  const client = new Client({ name: 'private-networks', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(created.body.mcp_url), { requestInit: { headers: asAlice } }));
  t.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['echo']);
  await client.close();
  t.is(upstream.seenAuthorization.at(-1), `Bearer ${TOKEN}`, 'the connector\'s token, not the caller\'s key, went upstream');
});

test('only what is listed: a server on a listed address naming resource metadata on ::1 is refused at connect, ::1 never contacted', async (t) => {
  let metadataHits = 0;
  const metadata = await listen('::1', (_req, res) => {
    metadataHits++;
    res.writeHead(404).end();
  });
  const metadataUrl = `http://[::1]:${(metadata.address() as AddressInfo).port}/.well-known/oauth-protected-resource`;
  const server = await listen('127.0.0.1', (_req, res) => {
    res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${metadataUrl}"` }).end();
  });
  t.teardown(() => {
    for (const s of [metadata, server]) s.close();
  });
  const created = await listed.api('POST', '/api/v1/connectors', { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` }, asAlice);
  t.is(created.status, 201);
  const refused = await connect(listed, created.body.id, {});
  t.is(refused.status, 422, JSON.stringify(refused.body));
  t.regex(refused.body.detail, /::1.*loopback address, refused by CONNECTOR__BLOCK_PRIVATE_NETWORKS/);
  t.regex((await record(listed, created.body.id)).disconnect_reason, /loopback address, refused by CONNECTOR__BLOCK_PRIVATE_NETWORKS/);
  t.is(metadataHits, 0);
});

test('a given token is not sent over plain http where it may not travel: 422 before anything', async (t) => {
  const id = await createdBehindTheApi(blocked, 'http://192.0.2.10/mcp');
  const refused = await connect(blocked, id, { access_token: TOKEN });
  t.is(refused.status, 422, JSON.stringify(refused.body));
  t.is(refused.body.type, 'https://connector-registry.dev/problems/token-over-plain-http');
  t.regex(refused.body.detail, /not sent over plain http to 192\.0\.2\.10: use https/);
  const unchanged = await record(blocked, id);
  t.is(unchanged.state, 'created', 'refused before the workflow heard of it');
  const events = (await blocked.api('GET', `/api/v1/connectors/${id}/events`, undefined, asAlice)).body.items;
  t.deepEqual(events.map((e: { to: string }) => e.to), ['created']);
});

// Without a token there is nothing to leak yet: the connect goes on (here to the address guard,
// which refuses this reserved address without a packet), and an OAuth flow is refused only once
// the server asks for authorization (test/oauth/token-transport-begin.test.ts).
test('a connect without a token to a plain-http URL is not refused by the token rule', async (t) => {
  const id = await createdBehindTheApi(blocked, 'http://192.0.2.10/mcp');
  const refused = await connect(blocked, id, {});
  t.not(refused.body.type, 'https://connector-registry.dev/problems/token-over-plain-http', JSON.stringify(refused.body));
  t.regex(refused.body.detail, /probe was refused: 192\.0\.2\.10 resolves to 192\.0\.2\.10, a reserved address, which is never contacted/);
});

test('over https the token rule lets the connect through, and the address guard refuses it (not 422)', async (t) => {
  const id = await createdBehindTheApi(blocked, 'https://192.0.2.10/mcp');
  const refused = await connect(blocked, id, { access_token: TOKEN });
  t.is(refused.status, 502, JSON.stringify(refused.body));
  t.regex(refused.body.detail, /192\.0\.2\.10, a reserved address, which is never contacted/);
});

function listen(host: string, handler: http.RequestListener): Promise<http.Server> {
  const server = http.createServer(handler);
  return new Promise((resolve) => server.listen(0, host, () => resolve(server)));
}
