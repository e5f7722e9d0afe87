// An upstream 403 asking the connector's token for more scope (RFC 6750 insufficient_scope): the
// proxy never relays it (its challenge names the service's authorization server); it asks the
// registry for a step-up authorization once per token and scope set, however often the caller
// asks, and answers with the URL on offer: JSON-RPC -32042 to a client that declared URL-mode
// elicitation (2026-07-28 `_meta`, or a 2025 session's initialize), else 403 and a JSON-RPC error whose data is the problem.
import anyTest, { type TestFn } from 'ava';
import { RouteCache } from '../../proxy/route-cache';
import { refreshingSource, startAuthUpstream, type AuthUpstream, type RefreshingSource } from './auth-upstream';
import { startProxy, type ProxyHarness } from './proxy-harness';
import { mcpErrorOf } from './mcp-answers';
import { RPC_ERROR } from '../../proxy/problem-response';

const test = anyTest.serial as TestFn<{ upstream: AuthUpstream; source: RefreshingSource; proxy: ProxyHarness }>;

const ADMIN_CHALLENGE = 'Bearer error="insufficient_scope", scope="mcp:read mcp:admin", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"';
const STEP_UP_URL = 'https://connector.test/api/v1/connectors/oauth/authorize?step-up';
const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

test.before(async (t) => {
  const upstream = await startAuthUpstream();
  const source = refreshingSource(upstream.url);
  // Through the cache, as the service runs it: step-up reports pass through.
  const proxy = await startProxy(new RouteCache(source));
  t.context = { upstream, source, proxy };
});

test.after.always(async (t) => {
  await t.context.proxy?.close();
  await t.context.upstream?.close();
});

const call = (proxy: ProxyHarness, meta?: Record<string, unknown>, headers: Record<string, string> = {}) => fetch(proxy.mcpUrl('conn'), {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'admin-echo', arguments: { text: 'x' }, ...(meta ? { _meta: meta } : {}) } }),
});

test('a client without URL elicitation gets 403, a JSON-RPC error with the step-up URL in its data; one report per scope set', async (t) => {
  const { upstream, source, proxy } = t.context;
  upstream.judge = () => ({ status: 403, challenge: ADMIN_CHALLENGE });
  for (let i = 0; i < 5; i++) {
    const response = await call(proxy);
    t.is(response.status, 403);
    t.is(response.headers.get('www-authenticate'), null, 'the upstream challenge is never relayed');
    const { rpc, problem } = await mcpErrorOf(response);
    t.is(rpc?.code, RPC_ERROR.scopeRequired);
    t.is(problem.authorization_url, STEP_UP_URL);
    t.is(problem.scope, 'mcp:admin mcp:read');
    t.regex(problem.detail, /stays connected/);
  }
  t.is(upstream.seen.length, 5, 'a 403 is never retried');
  t.deepEqual(source.stepUps, ['mcp:admin mcp:read']);
  t.deepEqual(source.refreshCalls, []);
});

test('a 2026-07-28 request declaring URL elicitation in _meta gets -32042 with the URL, for its own id', async (t) => {
  const { upstream, proxy } = t.context;
  upstream.judge = () => ({ status: 403, challenge: ADMIN_CHALLENGE });
  const response = await call(proxy, { [CAPABILITIES]: { elicitation: { url: {} } } });
  t.is(response.status, 200);
  const answer = (await response.json()) as { id: number; error: { code: number; data: { elicitations: { mode: string; url: string; elicitationId: string }[] } } };
  t.is(answer.id, 7);
  t.is(answer.error.code, -32042);
  t.is(answer.error.data.elicitations[0]!.mode, 'url');
  t.is(answer.error.data.elicitations[0]!.url, STEP_UP_URL);
  t.truthy(answer.error.data.elicitations[0]!.elicitationId);
  // Form-mode elicitation only is not URL mode.
  const form = await call(proxy, { [CAPABILITIES]: { elicitation: { form: {} } } });
  t.is(form.status, 403);
});

test('a different scope set is reported again; a 403 without insufficient_scope or scope is relayed as the server wrote it', async (t) => {
  const { upstream, source, proxy } = t.context;
  const before = source.stepUps.length;
  upstream.judge = () => ({ status: 403, challenge: 'Bearer error="insufficient_scope", scope="mcp:write"' });
  t.is((await call(proxy)).status, 403);
  t.is((await call(proxy)).status, 403);
  upstream.judge = () => ({ status: 403, challenge: 'Bearer error="insufficient_scope"' });
  const bare = await call(proxy);
  t.is(bare.status, 403);
  t.deepEqual(await bare.json(), { refused: 403, token: 'token-1' });
  upstream.judge = () => ({ status: 403, challenge: 'Bearer error="invalid_request", scope="mcp:other"' });
  t.is((await call(proxy)).status, 403);
  t.deepEqual(source.stepUps.slice(before), ['mcp:write']);
});

test('when no step-up can be offered, the 403 problem says why and carries no URL', async (t) => {
  const upstream = await startAuthUpstream();
  const proxy = await startProxy(new RouteCache(refreshingSource(upstream.url, { stepUpUrl: null })));
  t.teardown(async () => {
    await proxy.close();
    await upstream.close();
  });
  upstream.judge = () => ({ status: 403, challenge: ADMIN_CHALLENGE });
  const response = await call(proxy, { [CAPABILITIES]: { elicitation: { url: {} } } });
  t.is(response.status, 403);
  const { problem } = await mcpErrorOf(response);
  t.is(problem.authorization_url, undefined);
  t.regex(problem.detail, /authorization server is unavailable/);
});

test('a token replaced meanwhile (a step-up just granted): 503 credentials-changed, worth sending again', async (t) => {
  const upstream = await startAuthUpstream();
  const source = refreshingSource(upstream.url);
  source.stepUp = async (_id, report) => {
    source.stepUps.push(report.scope);
    return { authorizationUrl: null, reason: "the token reported is no longer the connector's", stale: true };
  };
  const proxy = await startProxy(new RouteCache(source));
  t.teardown(async () => {
    await proxy.close();
    await upstream.close();
  });
  upstream.judge = () => ({ status: 403, challenge: ADMIN_CHALLENGE });
  const response = await call(proxy);
  t.is(response.status, 503);
  t.is(response.headers.get('retry-after'), '0');
});

test('a route source that takes no step-up reports (a static table): the 403 is relayed as the server wrote it, less its challenge', async (t) => {
  const upstream = await startAuthUpstream();
  const { get } = refreshingSource(upstream.url);
  const proxy = await startProxy({ get });
  t.teardown(async () => {
    await proxy.close();
    await upstream.close();
  });
  upstream.judge = () => ({ status: 403, challenge: ADMIN_CHALLENGE });
  const response = await call(proxy);
  t.is(response.status, 403);
  t.is(response.headers.get('www-authenticate'), null);
  t.deepEqual(await response.json(), { refused: 403, token: 'token-1' });
});
