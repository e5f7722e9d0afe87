// An upstream 403 asking for more scope (RFC 6750 insufficient_scope): the caller gets the answer
// as the server wrote it, less its challenge (which names the service's authorization server),
// and the route source hears about the scope once per scope set, however often the caller asks.
import anyTest, { type TestFn } from 'ava';
import { RouteCache } from '../../proxy/route-cache';
import { refreshingSource, startAuthUpstream, type AuthUpstream, type RefreshingSource } from './auth-upstream';
import { startProxy, type ProxyHarness } from './proxy-harness';

const test = anyTest.serial as TestFn<{ upstream: AuthUpstream; source: RefreshingSource; proxy: ProxyHarness }>;

const ADMIN_CHALLENGE = 'Bearer error="insufficient_scope", scope="mcp:read mcp:admin", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"';

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

const call = (proxy: ProxyHarness) => fetch(proxy.mcpUrl('conn'), {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'admin-echo', arguments: { text: 'x' } } }),
});

test('the 403 is relayed without its challenge and the scope reported once, however often the tool is called', async (t) => {
  const { upstream, source, proxy } = t.context;
  upstream.judge = () => ({ status: 403, challenge: ADMIN_CHALLENGE });
  for (let i = 0; i < 5; i++) {
    const response = await call(proxy);
    t.is(response.status, 403);
    t.is(response.headers.get('www-authenticate'), null);
    t.deepEqual(await response.json(), { refused: 403, token: 'token-1' });
  }
  t.is(upstream.seen.length, 5, 'a 403 is never retried');
  t.deepEqual(source.stepUps, ['mcp:admin mcp:read']);
  t.deepEqual(source.refreshCalls, []);
});

test('a different scope set is reported again; a 403 without insufficient_scope or scope is not', async (t) => {
  const { upstream, source, proxy } = t.context;
  const before = source.stepUps.length;
  upstream.judge = () => ({ status: 403, challenge: 'Bearer error="insufficient_scope", scope="mcp:write"' });
  t.is((await call(proxy)).status, 403);
  t.is((await call(proxy)).status, 403);
  upstream.judge = () => ({ status: 403, challenge: 'Bearer error="insufficient_scope"' });
  t.is((await call(proxy)).status, 403);
  upstream.judge = () => ({ status: 403, challenge: 'Bearer error="invalid_request", scope="mcp:other"' });
  t.is((await call(proxy)).status, 403);
  t.deepEqual(source.stepUps.slice(before), ['mcp:write']);
});
