// Without an OTLP endpoint, traces are entirely off: no tracer provider, propagator or context
// manager is registered with the OpenTelemetry API (no SDK was started), nothing reaches a
// receiver on the default OTLP port, and an MCP caller's trace headers do not cross the proxy.
// Its own file: each ava file runs in a process of its own, so no other test's SDK is about.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startRecordingMcpServer, type RecordingMcpServer } from '../fixtures/recording-mcp-server';
import { fetchWithHeaders } from '../helpers/otlp-receiver';
import { startTestStack, type TestStack } from '../helpers/test-stack';

const TOKEN = 'traces-off-token-2c9e';
/** Where the OpenTelemetry API keeps what an SDK registers (its major version's global). */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

let upstream: RecordingMcpServer;
let stack: TestStack;
/** OTLP/HTTP's default endpoint (localhost:4318), where an exporter started without one would post. */
let defaultReceiver: { posts: number; server: http.Server } | null = null;

test.before(async () => {
  defaultReceiver = await listenOnDefaultOtlpPort();
  upstream = await startRecordingMcpServer({ requireToken: TOKEN });
  // Every other OpenTelemetry variable set, the endpoint not: still off.
  stack = await startTestStack({
    OTEL_SERVICE_NAME: 'connector-registry-off', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'false',
  });
});

test.after.always(async () => {
  await stack?.stop().catch(() => undefined);
  await upstream?.close();
  defaultReceiver?.server.close();
});

test('with no OTLP endpoint no SDK is started, nothing is exported and no trace header crosses the proxy', async (t) => {
  t.is(stack.config.tracing, null);
  const { body: c } = await stack.api('POST', '/api/v1/connectors', { url: upstream.url }, { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
  t.is((await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: TOKEN })).status, 200);
  const withTraceHeaders = fetchWithHeaders({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'caller=opaque', baggage: 'user.id=alice' });
  const client = new Client({ name: 'traces-off-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(c.mcp_url), { fetch: withTraceHeaders }));
  await client.listTools();
  await client.close();

  const listed = await upstream.waitForRequest((r) => r.rpcMethod === 'tools/list');
  for (const name of ['traceparent', 'tracestate', 'baggage']) t.is(listed.headers[name], undefined, name);
  const registered = (globalThis as Record<symbol, Record<string, unknown> | undefined>)[OTEL_GLOBAL];
  for (const api of ['trace', 'propagation', 'context']) t.is(registered?.[api], undefined, `no global ${api} registered`);
  // A stop flushes whatever a started SDK would hold: after it, nothing can still be on its way.
  await stack.stop();
  if (defaultReceiver) t.is(defaultReceiver.posts, 0);
  else t.log('localhost:4318 is taken by another program: the default endpoint was not watched');
});

async function listenOnDefaultOtlpPort(): Promise<{ posts: number; server: http.Server } | null> {
  const state = { posts: 0, server: http.createServer((req, res) => { state.posts += 1; res.end(); }) };
  return new Promise((resolve) => {
    state.server.once('error', () => resolve(null));
    state.server.listen(4318, '127.0.0.1', () => resolve((state.server.address() as AddressInfo).port === 4318 ? state : null));
  });
}
