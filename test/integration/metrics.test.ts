// GET /metrics on the real embedded stack: after a scripted workload (create, connect with a
// token to a loopback MCP server, MCP calls through the proxy, a stdio connector, a disconnect)
// each series shows the right counts; the main port asks for an admin credential while callers
// are authenticated; CONNECTOR__METRICS_PORT serves the metrics apart, openly, and the main port no longer.
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sha256Hex } from '../../callers/api-keys';
import { startRecordingMcpServer, type RecordingMcpServer } from '../fixtures/recording-mcp-server';
import { createConsentAgent, startOidcServer, startProtectedMcpServer } from '../fixtures/oauth';
import { CALLBACK_PATH, deliverCallback, openConsentPage, startFlow } from '../helpers/oauth-service';
import { apiClient, eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { samples, valueOf } from '../helpers/prometheus-text';

const require = createRequire(import.meta.url);
const MEMORY = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist/index.js');
const TOKEN = 'metrics-upstream-token-5e6f';
const KEYS = { alice: 'alice-key-metrics-0a1b2c', ops: 'ops-key-metrics-3d4e5f' };
const as = (key: string) => ({ authorization: `Bearer ${key}` });

let stack: TestStack;
let apart: TestStack;
let upstream: RecordingMcpServer;

test.before(async () => {
  upstream = await startRecordingMcpServer({ requireToken: TOKEN });
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'alice', sha256: sha256Hex(KEYS.alice) }, { subject: 'ops', sha256: sha256Hex(KEYS.ops), admin: true }]),
    CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'false',
    // Every workload of this file must be ready within it, however busy the machine is: the
    // silent server's 504 waits it out.
    CONNECTOR__STDIO_READY_TIMEOUT_MS: '15000',
    CONNECTOR__PRESETS: JSON.stringify([
      { url: 'mcp+stdio://memory', metadata: { name: 'Memory', description: 'knowledge graph' }, stdio: { image: 'mcp/memory', command: [process.execPath], args: [MEMORY] } },
      { url: 'mcp+stdio://silent', metadata: { name: 'Silent', description: 'never answers' }, stdio: { image: 'busybox', command: [process.execPath], args: ['-e', 'setInterval(() => {}, 1000)'] } },
    ]),
  });
  apart = await startTestStack({ CONNECTOR__METRICS_PORT: '0' });
});

test.after.always(async () => {
  await stack?.stop();
  await apart?.stop();
  await upstream?.close();
});

/** The SDK client, with the Mcp-Method header a newer client sends (read here from the test's own request). */
function withMethodHeader(): typeof fetch {
  return (input, init) => {
    const method = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }).method : undefined;
    const headers = new Headers(init?.headers);
    if (method) headers.set('mcp-method', method);
    return fetch(input, { ...init, headers });
  };
}

const scrape = async (key = KEYS.ops) => (await stack.api('GET', '/metrics', undefined, as(key))).text;

test.serial('a scripted workload shows in every series, by route template and with bounded labels', async (t) => {
  const { body: c } = await stack.api('POST', '/api/v1/connectors', { url: upstream.url }, as(KEYS.alice));
  t.is((await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: TOKEN }, as(KEYS.alice))).status, 200);
  const client = new Client({ name: 'metrics-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(c.mcp_url), { fetch: withMethodHeader(), requestInit: { headers: as(KEYS.alice) } }));
  await client.listTools();
  // The SDK client keeps a GET stream open for the server's own messages.
  await eventually(async () => valueOf(await scrape(), 'mcp_proxy_open_streams', { connector_id: c.id }) === 1 || undefined, 10_000, 'the open GET stream');
  await client.close();
  t.is((await stack.api('POST', `/api/v1/connectors/${c.id}/disconnect`, {}, as(KEYS.alice))).status, 200);
  t.is((await fetch(`${stack.baseUrl}/api/v1/connectors/no-such-connector-0001/mcp`, { method: 'POST', headers: { ...as(KEYS.alice), 'mcp-method': 'made/up' }, body: '{}' })).status, 404);

  const { body: s } = await stack.api('POST', '/api/v1/connectors', { url: 'mcp+stdio://memory' }, as(KEYS.alice));
  t.is((await stack.api('POST', `/api/v1/connectors/${s.id}/connect`, {}, as(KEYS.alice))).status, 200);

  const text = await scrape();
  const http = (route: string, method: string, status: string) => valueOf(text, 'http_requests_total', { route, method, status });
  t.is(http('/api/v1/connectors', 'POST', '201'), 2);
  t.is(http('/api/v1/connectors/:id/connect', 'POST', '200'), 2);
  t.is(http('/api/v1/connectors/:id/disconnect', 'POST', '200'), 1);
  t.is(http('/api/v1/connectors/:id/mcp', 'POST', '200'), 2, 'initialize and tools/list');
  t.is(http('/api/v1/connectors/:id/mcp', 'POST', '202'), 1, 'the initialized notification');
  t.is(http('/api/v1/connectors/:id/mcp', 'POST', '404'), 1, 'the unknown connector, by the template too');
  t.is(valueOf(text, 'http_request_duration_seconds_count', { route: '/api/v1/connectors', method: 'POST', status: '201' }), 2);

  const mcp = (rpc_method: string, status: string, connector_id = c.id as string) => valueOf(text, 'mcp_proxy_requests_total', { connector_id, rpc_method, status });
  t.is(mcp('initialize', '200'), 1);
  t.is(mcp('tools/list', '200'), 1);
  t.is(mcp('notifications/initialized', '202'), 1);
  // Answered 404 before its body was read, and a header is never the method's source: 'unknown'.
  t.is(mcp('unknown', '404', 'unknown'), 1, 'an unknown id and a made-up method make no series of their own');
  t.is(valueOf(text, 'mcp_proxy_request_duration_seconds_count', { connector_id: c.id, rpc_method: 'tools/list', status: '200' }), 1);
  t.is(valueOf(text, 'mcp_proxy_open_streams', { connector_id: c.id }), 0, 'every relayed request and stream has closed');
  t.is(mcp('unknown', '200'), 1, 'the GET stream, which names no method');

  t.is(valueOf(text, 'connectors', { state: 'disconnected' }), 1);
  t.is(valueOf(text, 'connectors', { state: 'connected' }), 1);
  t.is(valueOf(text, 'connectors', { state: 'deleting' }), 0);

  t.is(valueOf(text, 'workload_starts_total', { outcome: 'ready' }), 1);
  t.is(valueOf(text, 'workload_readiness_seconds_count', { outcome: 'ready' }), 1);

  t.true(samples(text).some((sample) => sample.name.startsWith('temporal_') && sample.value > 0), 'the Temporal SDK\'s worker series are merged in');
  t.true((valueOf(text, 'process_cpu_user_seconds_total') ?? 0) > 0, 'the process\'s default series');

  for (const sample of samples(text)) {
    for (const value of Object.values(sample.labels)) {
      t.false(value.includes('no-such-connector'), `${sample.name} holds a raw path`);
      if (sample.labels.route) t.false(sample.labels.route.includes(c.id), `${sample.name} holds an id in its route`);
    }
  }
});

test.serial('without an Mcp-Method header the method label comes from the body; body bytes are counted by connector', async (t) => {
  const { body: c } = await stack.api('POST', '/api/v1/connectors', { url: upstream.url }, as(KEYS.alice));
  t.is((await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: TOKEN }, as(KEYS.alice))).status, 200);
  // What the client sends and reads, counted on its side of the proxy.
  const sent = { request: 0, response: 0 };
  const counting: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string') sent.request += Buffer.byteLength(init.body);
    const res = await fetch(input, init);
    if (init?.method === 'POST') sent.response += (await res.clone().arrayBuffer()).byteLength;
    return res;
  };
  const client = new Client({ name: 'metrics-body-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(c.mcp_url), { fetch: counting, requestInit: { headers: as(KEYS.alice) } });
  await client.connect(transport);
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { text: 'x'.repeat(10_000) } }); // a body past the prefix the proxy reads
  await client.callTool({ name: 'echo', arguments: { text: 'short' } });
  await client.close();

  const text = await eventually(async () => {
    const scraped = await scrape();
    return valueOf(scraped, 'mcp_proxy_open_streams', { connector_id: c.id }) === 0 ? scraped : undefined;
  }, 10_000, 'every stream closed');
  const mcp = (rpc_method: string, status: string) => valueOf(text, 'mcp_proxy_requests_total', { connector_id: c.id, rpc_method, status });
  t.is(mcp('initialize', '200'), 1);
  t.is(mcp('notifications/initialized', '202'), 1);
  t.is(mcp('tools/list', '200'), 1);
  t.is(mcp('tools/call', '200'), 2, 'the large body too');
  t.is(mcp('unknown', '200'), 1, 'the GET stream names no method');
  t.is(valueOf(text, 'mcp_proxy_request_bytes_total', { connector_id: c.id }), sent.request, 'every request body byte the client sent');
  t.true(sent.response > 10_000);
  t.true(valueOf(text, 'mcp_proxy_response_bytes_total', { connector_id: c.id })! >= sent.response, 'every response body byte the client read');
});

test.serial('a workload that never becomes ready is counted as a failed start, with its time', async (t) => {
  const { body: c } = await stack.api('POST', '/api/v1/connectors', { url: 'mcp+stdio://silent' }, as(KEYS.alice));
  t.is((await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, {}, as(KEYS.alice))).status, 504);
  const text = await scrape();
  t.true(valueOf(text, 'workload_starts_total', { outcome: 'failed' })! >= 1);
  t.is(valueOf(text, 'workload_readiness_seconds_count', { outcome: 'failed' }), valueOf(text, 'workload_starts_total', { outcome: 'failed' }));
  t.true(valueOf(text, 'workload_readiness_seconds_sum', { outcome: 'failed' })! >= 15, 'at least the readiness limit per failed start');
  t.is(valueOf(text, 'workload_starts_total', { outcome: 'ready' }), 1, 'the earlier start, unchanged');
});

test.serial('on the main port with callers authenticated, /metrics needs an admin credential', async (t) => {
  const none = await stack.api('GET', '/metrics');
  t.is(none.status, 401);
  t.is(none.headers.get('www-authenticate'), 'Bearer');
  t.is((await stack.api('GET', '/metrics', undefined, as(KEYS.alice))).status, 403);
  const admin = await stack.api('GET', '/metrics', undefined, as(KEYS.ops));
  t.is(admin.status, 200);
  t.regex(admin.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
});

test.serial('CONNECTOR__METRICS_PORT serves the metrics apart, unauthenticated, and the main port no longer', async (t) => {
  t.truthy(apart.metricsPort);
  t.not(apart.metricsPort, apart.port);
  t.is((await apart.api('GET', '/api/v1/connectors')).status, 200);
  t.is((await apart.api('GET', '/metrics')).status, 404);
  const scrape = await apiClient(`http://127.0.0.1:${apart.metricsPort}`)('GET', '/metrics');
  t.is(scrape.status, 200);
  t.is(valueOf(scrape.text, 'http_requests_total', { route: '/api/v1/connectors', method: 'GET', status: '200' }), 1);
  t.is(valueOf(scrape.text, 'http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }), 1, 'the main port\'s /metrics is an unmatched path');
  t.is((await apiClient(`http://127.0.0.1:${apart.metricsPort}`)('GET', '/api/v1/connectors')).status, 404);
});

test.serial('CONNECTOR__METRICS_PORT refuses a Host that is a DNS name (a rebinding page), and answers one that is an address; the main port, open, only loopback literals', async (t) => {
  const get = (host: string, port = apart.metricsPort, path = '/metrics') => new Promise<number>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path, headers: { host }, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
  t.is(await get(`127.attacker.example:${apart.metricsPort}`), 403);
  t.is(await get('attacker.example'), 403);
  t.is(await get(`127.0.0.1:${apart.metricsPort}`), 200);
  t.is(await get(`10.1.2.3:${apart.metricsPort}`), 200, 'a pod address, as a scraper sends it');
  // The main port of this stack runs open (no callers configured, on loopback).
  t.is(await get(`127.attacker.example:${apart.port}`, apart.port, '/healthz'), 403, 'a name that only starts like 127.');
  t.is(await get(`127.0.0.1:${apart.port}`, apart.port, '/healthz'), 200);
});

test.serial('a scheduled token refresh is counted with its lag behind the schedule', async (t) => {
  const as = await startOidcServer({ accessTokenTtl: 6 });
  const mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri });
  t.teardown(async () => {
    await mcp.close();
    await as.close();
  });
  const { res } = await startFlow(apart.api, { url: mcp.url });
  t.is(res.status, 200, res.text);
  const consent = await openConsentPage(apart.port, res.body.auth_request.authorization_endpoint);
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.toString(), { redirectUri: `${apart.baseUrl}${CALLBACK_PATH}` });
  t.is((await deliverCallback(apart.port, callback, consent.cookie)).status, 200);

  const metricsApi = apiClient(`http://127.0.0.1:${apart.metricsPort}`);
  // A 6 s token is refreshed 2 s before it expires (a third of its life), again and again.
  const text = await eventually(async () => {
    const scraped = (await metricsApi('GET', '/metrics')).text;
    return (valueOf(scraped, 'token_refreshes_total', { outcome: 'success' }) ?? 0) >= 1 ? scraped : undefined;
  }, 30_000, 'a refresh');
  const refreshes = valueOf(text, 'token_refreshes_total', { outcome: 'success' })!;
  const lagCount = valueOf(text, 'token_refresh_lag_seconds_count')!;
  t.true(lagCount >= refreshes - 1 && lagCount <= refreshes + 1, `one lag per scheduled refresh (${lagCount} for ${refreshes})`);
  t.true(valueOf(text, 'token_refresh_lag_seconds_sum')! >= 0);
  t.true((valueOf(text, 'in_task_calls_total', { outcome: 'answered' }) ?? 0) >= 1, 'the renewal its timer woke was answered in its workflow task');
  t.is(valueOf(text, 'connectors', { state: 'connected' }), 1);
});
