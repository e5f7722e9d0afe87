// A connector URL that carries a credential in its query (`?api_key=...`): the service keeps it
// whole to reach the server, answers it masked, and names the server by origin and path only in
// disconnect reasons, connect failures, events and logs. Traffic goes to loopback only. Serial:
// the last test reads the log the others wrote.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import test from 'ava';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { startTestStack, type TestStack } from '../helpers/test-stack';

let stack: TestStack;
let upstream: TokenMcpServer;

test.before(async () => {
  upstream = await startTokenMcpServer({ token: 'url-cred-token-1' });
  stack = await startTestStack({ CONNECTOR__CONNECT_TIMEOUT_MS: '5000' });
});

test.after.always(async () => {
  await stack?.stop();
  await upstream?.close();
});

const create = (body: unknown) => stack.api('POST', '/api/v1/connectors', body);
const connect = (id: string, body: unknown = {}) => stack.api('POST', `/api/v1/connectors/${id}/connect`, body);
const get = async (id: string) => (await stack.api('GET', `/api/v1/connectors/${id}`)).body;
const reasons = async (id: string): Promise<string> =>
  (await stack.api('GET', `/api/v1/connectors/${id}/events`)).body.items.map((e: { reason: string | null }) => e.reason ?? '').join('\n');

/** A loopback server that answers 401 to the MCP probe and HTML where its resource metadata should be, noting each path asked for. */
async function startBrokenOAuthServer(): Promise<{ origin: string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.url?.startsWith('/.well-known/oauth-protected-resource/')) res.writeHead(200, { 'content-type': 'text/html' }).end('<p>not metadata</p>');
    else if (req.url?.startsWith('/.well-known/')) res.writeHead(404).end();
    else res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

test.serial('the record answers the URL with its secret query values masked, and keeps it whole to reach the server', async (t) => {
  const key = 'query-api-key-7d31';
  const created = await create({ url: `${upstream.url}?api_key=${key}&region=eu&Signature=sig-8a2` });
  t.is(created.status, 201);
  t.is(created.body.url, `${upstream.url}?api_key=***&region=eu&Signature=***`);
  t.is((await get(created.body.id)).url, created.body.url);
  const listed = await stack.api('GET', '/api/v1/connectors?limit=100');
  t.false(listed.text.includes(key));
  t.false(listed.text.includes('sig-8a2'));
  const connected = await connect(created.body.id, { access_token: 'url-cred-token-1' });
  t.is(connected.status, 200, 'the probe reached the server with the stored URL');
  t.like(connected.body, { state: 'connected', url: created.body.url });
});

test.serial('user info in a connector URL is refused at create without being echoed', async (t) => {
  const res = await create({ url: `${upstream.url.replace('http://', 'http://someone:userinfo-pass-4c2@')}` });
  t.is(res.status, 422);
  t.false(res.text.includes('userinfo-pass-4c2'));
});

test.serial('a server that cannot be reached is named by origin and path in the failure, the record and its events', async (t) => {
  const closed = await startTokenMcpServer({ token: null });
  await closed.close(); // its port is closed now
  const key = 'unreachable-key-5e90';
  const { body: c } = await create({ url: `${closed.url}?token=${key}` });
  const failed = await connect(c.id, { access_token: 't' });
  t.is(failed.status, 502);
  t.regex(failed.body.detail, new RegExp(`at ${closed.url.replace(/[.]/g, '\\.')} could not be reached`));
  const record = await get(c.id);
  t.regex(record.disconnect_reason, /could not be reached/);
  for (const text of [failed.text, JSON.stringify(record), await reasons(c.id)]) t.false(text.includes(key));
});

test.serial('an OAuth discovery failure names the metadata location by origin and path, though the server was asked with the query', async (t) => {
  const server = await startBrokenOAuthServer();
  const key = 'oauth-query-key-2b77';
  const { body: c } = await create({ url: `${server.origin}/mcp?apikey=${key}` });
  const failed = await connect(c.id);
  t.true(failed.status >= 400, String(failed.status));
  const record = await get(c.id);
  t.is(record.state, 'disconnected');
  t.regex(record.disconnect_reason, new RegExp(`${server.origin.replace(/[.]/g, '\\.')}/\\.well-known/oauth-protected-resource/mcp is not JSON`));
  for (const text of [failed.text, JSON.stringify(record), await reasons(c.id)]) t.false(text.includes(key));
  t.true(server.seen.some((url) => url.includes(key)), 'the full URL is what the service uses');
  await server.close();
});

test.serial('no query credential reaches the logs', (t) => {
  const logs = fs.readFileSync(stack.logFile, 'utf8');
  for (const secret of ['query-api-key-7d31', 'sig-8a2', 'userinfo-pass-4c2', 'unreachable-key-5e90', 'oauth-query-key-2b77']) t.false(logs.includes(secret), secret);
});
