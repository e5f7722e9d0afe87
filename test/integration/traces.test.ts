// OpenTelemetry traces on the real embedded stack, exported over OTLP/HTTP (JSON) to a receiver
// on loopback: a token connect made through the REST API is one trace from the koa request span
// through the Temporal client's Update, the workflow's handler and an activity; an MCP request
// from a real SDK client continues the caller's traceparent, and the upstream MCP server gets the
// proxy's own traceparent, never the caller's tracestate or baggage. No span holds a secret.
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createConsentAgent, startOidcServer, startProtectedMcpServer } from '../fixtures/oauth';
import { startRecordingMcpServer, type RecordingMcpServer } from '../fixtures/recording-mcp-server';
import { CALLBACK_PATH, deliverCallback, openConsentPage, startFlow } from '../helpers/oauth-service';
import { SPAN_KIND, fetchWithHeaders, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';

const TOKEN = 'traces-upstream-token-7d41';
// The batch processor's delay, read by the SDK from the process environment: spans leave quickly.
process.env.OTEL_BSP_SCHEDULE_DELAY = '100';

let receiver: OtlpReceiver;
let upstream: RecordingMcpServer;
let stack: TestStack;

test.before(async () => {
  receiver = await startOtlpReceiver();
  upstream = await startRecordingMcpServer({ requireToken: TOKEN });
  stack = await startTestStack({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'false',
  });
});

test.after.always(async () => {
  await stack?.stop();
  await upstream?.close();
  await receiver?.close();
});

const inTrace = (traceId: string) => receiver.spans.filter((s) => s.traceId === traceId);
const named = (spans: ReceivedSpan[], name: string) => spans.find((s) => s.name === name);

/** The span's ancestors within the received spans, nearest first. */
function ancestors(span: ReceivedSpan): ReceivedSpan[] {
  const chain: ReceivedSpan[] = [];
  for (let parent = receiver.spans.find((s) => s.spanId === span.parentSpanId); parent; parent = receiver.spans.find((s) => s.spanId === parent!.parentSpanId)) {
    chain.push(parent);
  }
  return chain;
}

test.serial('a token connect through the REST API is one trace: koa request, Temporal Update, workflow handler, activity', async (t) => {
  const created = await stack.api('POST', '/api/v1/connectors', { url: upstream.url });
  t.is(created.status, 201);
  const connected = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: TOKEN });
  t.is(connected.status, 200, connected.text);

  const registered = (globalThis as Record<symbol, Record<string, unknown> | undefined>)[Symbol.for('opentelemetry.js.api.1')];
  t.truthy(registered?.trace, 'the SDK registered its tracer provider (traces-off.test.ts checks the opposite)');
  const request = await eventually(async () => receiver.spans.find((s) => s.name === 'POST /api/v1/connectors/:id/connect'), 20_000, 'the connect request span');
  t.is(request.kind, SPAN_KIND.server);
  t.is(request.service, 'connector-registry');
  t.is(request.attributes['http.response.status_code'], 200);
  t.is(request.attributes['url.path'], `/api/v1/connectors/${created.body.id}/connect`);

  // The workflow's spans come through the sink once its task completes; the activity's on its end.
  const spans = await eventually(async () => {
    const trace = inTrace(request.traceId);
    return trace.some((s) => s.name.startsWith('RunActivity:')) && trace.some((s) => s.name === 'HandleUpdate:connect') ? trace : undefined;
  }, 20_000, 'the workflow and activity spans of the connect');
  const update = named(spans, 'StartWorkflowUpdate:connect');
  const handler = named(spans, 'HandleUpdate:connect');
  const activity = spans.find((s) => s.name.startsWith('RunActivity:'));
  t.truthy(update, 'the Temporal client span');
  t.is(update!.parentSpanId, request.spanId, 'the Update is the request\'s child');
  t.is(handler!.parentSpanId, update!.spanId, 'the workflow\'s handler continues the client\'s span');
  t.true(ancestors(activity!).some((s) => s.spanId === handler!.spanId), `${activity!.name} runs under the handler`);
  t.true(ancestors(activity!).some((s) => s.spanId === request.spanId), 'and under the REST request');
  t.is(handler!.attributes.workflowId, `connector:${created.body.id}`);

  // The create is a trace of its own, from its request through Update-with-Start to the record's
  // write. (The workflow's run span ends only when the connector's workflow does.)
  const create = named(receiver.spans, 'POST /api/v1/connectors')!;
  const createSpans = await eventually(async () => (named(inTrace(create.traceId), 'RunActivity:recordTransition') ? inTrace(create.traceId) : undefined), 20_000, 'the create\'s record write');
  const withStart = named(createSpans, 'UpdateWithStartWorkflow:created')!;
  t.is(withStart.parentSpanId, create.spanId);
  t.is(named(createSpans, 'HandleUpdate:created')!.parentSpanId, withStart.spanId);
  t.not(create.traceId, request.traceId);
});

test.serial('an MCP request continues the caller\'s traceparent; the upstream gets the proxy\'s own, without tracestate or baggage', async (t) => {
  const { body: c } = await stack.api('POST', '/api/v1/connectors', { url: upstream.url });
  t.is((await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: TOKEN })).status, 200);
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const callerSpanId = '00f067aa0ba902b7';
  const traced = fetchWithHeaders({ traceparent: `00-${traceId}-${callerSpanId}-01`, tracestate: 'caller=t61rcWkgMzE', baggage: 'user.id=alice,session=secret-session-value' });
  const client = new Client({ name: 'traces-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(c.mcp_url), { fetch: traced }));
  await client.listTools();
  await client.close();

  const listed = await upstream.waitForRequest((r) => r.rpcMethod === 'tools/list' && r.headers.traceparent?.includes(traceId) === true);
  t.is(listed.headers.baggage, undefined);
  t.is(listed.headers.tracestate, undefined);
  const [, upstreamTrace, upstreamParent, flags] = String(listed.headers.traceparent).split('-');
  t.is(upstreamTrace, traceId);
  t.is(flags, '01');

  const client_ = await eventually(async () => receiver.spans.find((s) => s.spanId === upstreamParent), 20_000, 'the proxy\'s client span');
  t.is(client_.kind, SPAN_KIND.client);
  t.is(client_.attributes['http.response.status_code'], 200);
  t.is(client_.attributes['server.address'], '127.0.0.1');
  const server = receiver.spans.find((s) => s.spanId === client_.parentSpanId)!;
  t.is(server.kind, SPAN_KIND.server);
  t.is(server.name, 'POST /api/v1/connectors/:id/mcp');
  t.is(server.parentSpanId, callerSpanId, 'the caller\'s span is the parent');
  t.is(server.traceId, traceId);
  t.is(server.attributes['connector.id'], c.id);
  t.is(server.attributes['connector.route.outcome'], 'connected');
  t.is(server.attributes['http.response.status_code'], 200);

  // A request for a connector that does not exist is traced too, with its outcome.
  const missing = await fetch(`${stack.baseUrl}/api/v1/connectors/no-such-connector-0001/mcp`, {
    method: 'POST', headers: { traceparent: `00-${traceId}-${callerSpanId}-01`, 'content-type': 'application/json' }, body: '{}',
  });
  t.is(missing.status, 404);
  const notFound = await eventually(async () => receiver.spans.find((s) => s.attributes['connector.route.outcome'] === 'not_found'), 20_000, 'the 404\'s span');
  t.is(notFound.attributes['connector.id'], undefined, 'an unknown id is not named');
  t.is(notFound.attributes['http.response.status_code'], 404);
});

test.serial('an OAuth connect is traced to the callback\'s code exchange, and no span holds its state, code, URLs or tokens', async (t) => {
  const as = await startOidcServer();
  const mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri });
  t.teardown(async () => {
    await mcp.close();
    await as.close();
  });
  const { res } = await startFlow(stack.api, { url: mcp.url });
  t.is(res.status, 200, res.text);
  const consent = await openConsentPage(stack.port, res.body.auth_request.authorization_endpoint);
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.toString(), { redirectUri: `${stack.baseUrl}${CALLBACK_PATH}` });
  t.is((await deliverCallback(stack.port, callback, consent.cookie)).status, 200);

  const request = await eventually(async () => receiver.spans.find((s) => s.name === `GET ${CALLBACK_PATH}`), 20_000, 'the callback request span');
  t.is(request.attributes['url.path'], CALLBACK_PATH, 'the path without the code and state');
  const spans = await eventually(async () => {
    const trace = inTrace(request.traceId);
    return trace.some((s) => s.name.startsWith('RunActivity:') && ancestors(s).some((a) => a.spanId === request.spanId)) ? trace : undefined;
  }, 20_000, 'the callback\'s activity');
  t.truthy(named(spans, 'HandleUpdate:authorizationCallback'));

  const text = JSON.stringify(receiver.spans);
  const secrets = {
    code: callback.searchParams.get('code')!, state: callback.searchParams.get('state')!,
    authorizationUrl: consent.authorizationUrl.toString(), consentEndpoint: res.body.auth_request.authorization_endpoint,
    ...Object.fromEntries(as.issuedRefreshTokens().map((token, i) => [`refresh token ${i}`, token])),
    ...Object.fromEntries(mcp.seenTokens.map((token, i) => [`access token ${i}`, token])),
  };
  t.true(mcp.seenTokens.length > 0 && as.issuedRefreshTokens().length > 0, 'the flow issued tokens to look for');
  for (const [name, secret] of Object.entries(secrets)) t.false(text.includes(secret), name);
});

test.serial('no span holds a token, a credential header or a baggage value', async (t) => {
  await eventually(async () => (receiver.spans.length > 0 ? true : undefined));
  const text = JSON.stringify(receiver.spans);
  for (const secret of [TOKEN, 'Bearer', 'secret-session-value', 't61rcWkgMzE']) t.false(text.includes(secret), secret);
  t.true(receiver.posts.every((p) => p.path === '/v1/traces' && p.contentType.startsWith('application/json')));
});
