// Traces in the production shape, from the compiled entry points (dist/): the API, the worker
// (with the prebuilt traced workflow bundle) and the proxy as processes of their own, each
// exporting to one OTLP receiver under its own service name. A connect's trace crosses from the
// API process into the worker's workflow and activities; an MCP request's crosses the proxy,
// with its route lookup (a workflow query) and the upstream request under the caller's span.
import crypto from 'node:crypto';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startRecordingMcpServer } from '../fixtures/recording-mcp-server';
import { fetchWithHeaders, startOtlpReceiver } from '../helpers/otlp-receiver';
import { eventually } from '../helpers/test-stack';
import { startSplitProcesses } from '../helpers/split-processes';

const TOKEN = 'traces-split-token-84a2';

test('api, worker and proxy processes export one connect trace and one proxy trace', async (t) => {
  const upstream = await startRecordingMcpServer({ requireToken: TOKEN });
  const receiver = await startOtlpReceiver();
  t.teardown(async () => {
    await receiver.close();
    await upstream.close();
  });
  const { start, proxyPort } = await startSplitProcesses(t, {
    CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'false',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '100',
  });
  await start('dist/worker.mjs', 'worker');
  const api = await start('dist/api.mjs', 'api');
  await start('dist/proxy.mjs', 'proxy', { PORT: String(proxyPort) });

  const { body: c } = await api.api('POST', '/api/v1/connectors', { url: upstream.url });
  t.is((await api.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: TOKEN })).status, 200);
  const request = await eventually(async () => receiver.spans.find((s) => s.name === 'POST /api/v1/connectors/:id/connect'), 20_000, 'the connect request span');
  const connect = await eventually(async () => {
    const spans = receiver.spans.filter((s) => s.traceId === request.traceId);
    return spans.some((s) => s.name === 'RunActivity:probeServer') && spans.some((s) => s.name === 'HandleUpdate:connect') ? spans : undefined;
  }, 20_000, 'the worker\'s spans of the connect');
  const services = (names: string[]) => names.map((n) => connect.find((s) => s.name === n)?.service);
  t.deepEqual(services(['POST /api/v1/connectors/:id/connect', 'StartWorkflowUpdate:connect', 'HandleUpdate:connect', 'RunActivity:probeServer']),
    ['connector-registry-api', 'connector-registry-api', 'connector-registry-worker', 'connector-registry-worker']);

  const traceId = crypto.randomBytes(16).toString('hex');
  const callerSpanId = crypto.randomBytes(8).toString('hex');
  const withTraceparent = fetchWithHeaders({ traceparent: `00-${traceId}-${callerSpanId}-01`, baggage: 'tenant=acme' });
  const client = new Client({ name: 'traces-split-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(c.mcp_url), { fetch: withTraceparent }));
  await client.listTools();
  await client.close();
  // (The connect's probe initialized a session before, outside this trace.)
  const relayed = upstream.requests.filter((r) => r.rpcMethod === 'initialize' || r.rpcMethod === 'tools/list').slice(-2);
  t.deepEqual(relayed.map((r) => r.rpcMethod), ['initialize', 'tools/list']);
  for (const r of relayed) {
    t.true(String(r.headers.traceparent).startsWith(`00-${traceId}-`), String(r.headers.traceparent));
    t.is(r.headers.baggage, undefined);
  }

  // The first request missed the proxy's route cache: its workflow query hangs from the request.
  const first = await eventually(async () => {
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    const server = spans.find((s) => s.parentSpanId === callerSpanId && spans.some((q) => q.name === 'QueryWorkflow:route' && q.parentSpanId === s.spanId));
    return server ? { server, spans } : undefined;
  }, 20_000, 'the proxy\'s first request with its route query');
  t.is(first.server.service, 'connector-registry-proxy');
  t.is(first.server.attributes['connector.id'], c.id);
  t.true(first.spans.some((s) => s.parentSpanId === first.server.spanId && s.attributes['server.address'] === '127.0.0.1'), 'the upstream request\'s span');
  t.false(JSON.stringify(receiver.spans).includes(TOKEN));
});
