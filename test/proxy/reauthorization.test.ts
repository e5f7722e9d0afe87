// A 401 that no refresh cures: the registry answers the connector in auth_required with a fresh
// authorization URL, and the request that met the 401 is answered with it: 409 problem details
// with `authorization_url`, or -32042 to a client that declared URL-mode elicitation, in its
// 2025 session's initialize (remembered by the session id the upstream gave) or in the request's
// 2026-07-28 `_meta`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest, { type TestFn } from 'ava';
import { RouteCache } from '../../proxy/route-cache';
import { refreshingSource } from './auth-upstream';
import { startProxy, type ProxyHarness } from './proxy-harness';
import { mcpErrorOf } from './mcp-answers';

const AUTHORIZE_URL = 'https://connector.test/api/v1/connectors/oauth/authorize?again';

interface SessionUpstream {
  url: string;
  /** From now on every request carrying a session id is refused (401). */
  refuseSessions: boolean;
  close(): Promise<void>;
}

/** An upstream that opens a session on initialize and answers everything else, until told to refuse. */
async function startSessionUpstream(): Promise<SessionUpstream> {
  let sessions = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: number; method?: string };
      if (upstream.refuseSessions && (req.headers['mcp-session-id'] || message.method !== 'initialize')) {
        res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' }).end();
        return;
      }
      const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json' };
      if (message.method === 'initialize') headers['mcp-session-id'] = `session-${++sessions}`;
      res.writeHead(200, headers).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const upstream: SessionUpstream = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    refuseSessions: false,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  return upstream;
}

const test = anyTest.serial as TestFn<{ upstream: SessionUpstream; proxy: ProxyHarness }>;

test.beforeEach(async (t) => {
  const upstream = await startSessionUpstream();
  // The refresh brings nothing new (a static token): the 401 is reported as a refusal at once.
  const source = refreshingSource(upstream.url, {
    answer: async () => ({ kind: 'connected', target: upstream.url, token: 'token-1', sealedToken: 'sealed-1' }),
    refusedAs: { kind: 'not_connected', state: 'auth_required', authorizationUrl: AUTHORIZE_URL },
  });
  t.context = { upstream, proxy: await startProxy(new RouteCache(source)) };
});

test.afterEach.always(async (t) => {
  await t.context.proxy?.close();
  await t.context.upstream?.close();
});

function post(proxy: ProxyHarness, message: unknown, sessionId?: string) {
  return fetch(proxy.mcpUrl('conn'), {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(message),
  });
}

const initialize = (capabilities: Record<string, unknown>) => ({
  jsonrpc: '2.0', id: 0, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'reauth-test', version: '1.0.0' } },
});

test('a 2025 session whose initialize declared URL elicitation gets -32042 with the new authorization URL', async (t) => {
  const { upstream, proxy } = t.context;
  const opened = await post(proxy, initialize({ elicitation: { url: {} } }));
  const sessionId = opened.headers.get('mcp-session-id')!;
  t.truthy(sessionId);
  await opened.arrayBuffer();
  upstream.refuseSessions = true;
  const response = await post(proxy, { jsonrpc: '2.0', id: 'call-1', method: 'tools/list' }, sessionId);
  t.is(response.status, 200);
  const answer = (await response.json()) as { id: string; error: { code: number; data: { elicitations: { url: string }[] } } };
  t.is(answer.id, 'call-1');
  t.is(answer.error.code, -32042);
  t.is(answer.error.data.elicitations[0]!.url, AUTHORIZE_URL);
});

test('a 2025 session without URL elicitation gets 409, -32010 whose data.authorization_url holds the URL', async (t) => {
  const { upstream, proxy } = t.context;
  const opened = await post(proxy, initialize({ elicitation: { form: {} } }));
  const sessionId = opened.headers.get('mcp-session-id')!;
  await opened.arrayBuffer();
  upstream.refuseSessions = true;
  const response = await post(proxy, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, sessionId);
  t.is(response.status, 409);
  t.is(response.headers.get('www-authenticate'), null);
  const { rpc, problem } = await mcpErrorOf(response);
  t.like(rpc, { id: 1, code: -32010 });
  t.is(problem.connector_state, 'auth_required');
  t.is(problem.authorization_url, AUTHORIZE_URL);
  t.regex(problem.detail, /authorization_url/);
});

test('a session the proxy never saw initialized, and a notification, get the 409 problem', async (t) => {
  const { upstream, proxy } = t.context;
  upstream.refuseSessions = true;
  t.is((await post(proxy, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, 'session-unknown')).status, 409);
  t.is((await post(proxy, { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } } } })).status, 409);
});

test('a 2026-07-28 request declaring URL elicitation in _meta gets -32042', async (t) => {
  const { upstream, proxy } = t.context;
  upstream.refuseSessions = true;
  const response = await post(proxy, {
    jsonrpc: '2.0', id: 3, method: 'tools/call',
    params: { name: 'x', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } } },
  });
  t.is(response.status, 200);
  const answer = (await response.json()) as { id: number; error: { code: number } };
  t.deepEqual([answer.id, answer.error.code], [3, -32042]);
});
