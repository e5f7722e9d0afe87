// The production shape, run from the compiled entry points (dist/, what the image runs): Temporal
// and the database as external servers, two API processes, two workers and one proxy, each its
// own process. A connector created through one API is served by the other and by the proxy; a
// worker killed mid-connect loses nothing.
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventually } from '../helpers/test-stack';
import { samples, valueOf } from '../helpers/prometheus-text';
import { startSplitProcesses } from '../helpers/split-processes';
import { startTokenMcpServer } from '../fixtures/token-mcp-server';

const TOKEN = 'split-token-31c0';

test('two APIs, two workers and a proxy as separate processes share one truth', async (t) => {
  const upstream = await startTokenMcpServer({ token: TOKEN });
  t.teardown(() => upstream.close());
  const { start, proxyPort } = await startSplitProcesses(t, { CONNECTOR__CONNECT_TIMEOUT_MS: '30000' });

  const workerA = await start('dist/worker.mjs', 'worker-a');
  const workerReady = await workerA.api('GET', '/readyz');
  t.deepEqual(workerReady.body.checks, { temporal: 'ok', database: 'ok', worker: 'ok' });
  const api1 = await start('dist/api.mjs', 'api-1');
  const api2 = await start('dist/api.mjs', 'api-2');
  t.not(api1.baseUrl, api2.baseUrl);

  const { body: c } = await api1.api('POST', '/api/v1/connectors', { url: upstream.url });
  const seenByOther = await api2.api('GET', `/api/v1/connectors/${c.id}`);
  t.is(seenByOther.status, 200);
  t.is(seenByOther.body.state, 'created');

  // Worker A takes the connect's probe, which the upstream holds; A dies with the probe in hand.
  upstream.setHang(true);
  const seenBefore = upstream.seenAuthorization.length;
  const connecting = api2.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: TOKEN });
  await eventually(async () => (upstream.seenAuthorization.length > seenBefore ? true : undefined), 30_000, 'the probe to reach the upstream');
  const workerB = await start('dist/worker.mjs', 'worker-b');
  await workerA.kill();
  upstream.setHang(false);

  const connected = await connecting;
  t.is(connected.status, 200, JSON.stringify(connected.body));
  t.is(connected.body.state, 'connected');
  t.is((await api1.api('GET', `/api/v1/connectors/${c.id}`)).body.state, 'connected');
  const events = (await api1.api('GET', `/api/v1/connectors/${c.id}/events`)).body.items;
  t.deepEqual(events.map((e: { to: string }) => e.to), ['created', 'connecting', 'connected'], 'exactly one connect on record');

  // The proxy process serves it, with the token from the workflow.
  const proxy = await start('dist/proxy.mjs', 'proxy', { PORT: String(proxyPort) });
  const client = new Client({ name: 'split-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(c.mcp_url)));
  const result = await client.callTool({ name: 'echo', arguments: { text: 'through the proxy process' } });
  await client.close();
  t.is((result.content as { text: string }[])[0]!.text, 'through the proxy process');
  t.is(upstream.seenAuthorization.at(-1), `Bearer ${TOKEN}`);

  // Each process serves its own metrics; connectors by state only where the API reads the projection.
  const [apiText, proxyText, workerText] = await Promise.all([api1, proxy, workerB].map(async (p) => (await p.api('GET', '/metrics')).text));
  t.is(valueOf(apiText!, 'connectors', { state: 'connected' }), 1);
  t.is(valueOf(apiText!, 'http_requests_total', { method: 'POST', route: '/api/v1/connectors', status: '201' }), 1);
  const relayed = (rpc_method: string, status: string) => valueOf(proxyText!, 'mcp_proxy_requests_total', { connector_id: c.id, rpc_method, status });
  t.is(relayed('initialize', '200'), 1, 'methods from the bodies, without an Mcp-Method header');
  t.is(relayed('tools/call', '200'), 1);
  t.is(relayed('unknown', '200'), 1, 'the GET stream');
  t.is(relayed('notifications/initialized', '202'), 1);
  // The proxy process wrote the per-call audit; an API process reads it.
  const audited = await eventually(async () => {
    const items = (await api2.api('GET', `/api/v1/connectors/${c.id}/calls?method=tools/call`)).body?.items;
    return items?.length ? items : undefined;
  }, 20_000, 'the proxy\'s audit of the call');
  t.is(audited[0].rpc_name, 'echo');
  t.is(audited[0].status, 200);
  t.is(valueOf(workerText!, 'connectors', { state: 'connected' }), undefined, 'not counted twice');
  t.true(samples(workerText!).some((sample) => sample.name.startsWith('temporal_worker')), 'the Temporal SDK\'s worker series');
  t.truthy(workerB);
});
