// An upstream 401 to a request that carried the connector's token: the proxy refreshes the token
// through its route source (once for every request that hit the same 401), sends the request
// again with the new token and the caller's body as it was. When there is no new token, or the
// new one is refused too, the refusal is reported to the registry (with the upstream's challenge)
// and the caller gets the service's own 409, never the upstream's 401 and its WWW-Authenticate.
import { randomBytes } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { RouteCache } from '../../proxy/route-cache';
import type { RouteSource } from '../../proxy/route';
import { startTokenMcpServer } from '../fixtures/token-mcp-server';
import { postInParts, refreshingSource, startAuthUpstream, type AuthUpstream } from './auth-upstream';
import { connectClient, startProxy, type ProxyHarness } from './proxy-harness';
import { mcpErrorOf } from './mcp-answers';

async function setup(t: { teardown(fn: () => Promise<void>): void }, source: (upstream: AuthUpstream) => RouteSource, options = {}) {
  const upstream = await startAuthUpstream();
  const routes = source(upstream);
  const proxy: ProxyHarness = await startProxy(routes, options);
  t.teardown(async () => {
    await proxy.close();
    await upstream.close();
  });
  return { upstream, routes, proxy };
}

const post = (url: string, body: Buffer | string) => fetch(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body,
});

test('a refused token is refreshed and the request sent again with the new token and the same body', async (t) => {
  const { upstream, routes, proxy } = await setup(t, (u) => refreshingSource(u.url));
  // Binary, in parts, and the second part sent only once the upstream has refused the first
  // attempt: the copy must hold every byte, including those that came after the 401.
  const parts = [randomBytes(64 * 1024), randomBytes(100 * 1024), randomBytes(1)];
  const answer = await postInParts(proxy.mcpUrl('conn'), parts, () => upstream.arrived(1));
  t.is(answer.status, 200);
  const sent = Buffer.concat(parts);
  t.true(answer.body.equals(sent), 'the retry carried the body byte for byte');
  t.deepEqual(upstream.seen.map((r) => r.token), ['token-1', 'token-2']);
  t.true(upstream.seen[1]!.body!.equals(sent));
  t.deepEqual((routes as ReturnType<typeof refreshingSource>).refreshCalls, ['sealed-1']);
});

test('a request read whole for its Mcp-Method check is retried with that body and its length', async (t) => {
  const { upstream, proxy } = await setup(t, (u) => refreshingSource(u.url));
  const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'n', arguments: {} } });
  const response = await fetch(proxy.mcpUrl('conn'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-method': 'tools/call', 'mcp-name': 'n' },
    body,
  });
  t.is(response.status, 200);
  t.is(await response.text(), body);
  t.deepEqual(upstream.seen.map((r) => r.token), ['token-1', 'token-2']);
  t.is(upstream.seen[1]!.body?.toString(), body, 'the retry carried the body read for the check');
});

test('concurrent 401s share one refresh, and each request is retried once with its own body', async (t) => {
  const source = (u: AuthUpstream) => refreshingSource(u.url, { held: true });
  const { upstream, routes, proxy } = await setup(t, source);
  const bodies = Array.from({ length: 8 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'n', arguments: { i } } }));
  const answers = Promise.all(bodies.map(async (body) => {
    const response = await post(proxy.mcpUrl('conn'), body);
    return { status: response.status, text: await response.text() };
  }));
  await upstream.arrived(8); // every request has been refused while the refresh is held
  (routes as ReturnType<typeof refreshingSource>).release();
  t.deepEqual(await answers, bodies.map((text) => ({ status: 200, text })));
  t.deepEqual((routes as ReturnType<typeof refreshingSource>).refreshCalls, ['sealed-1']);
  const tokens = upstream.seen.map((r) => r.token);
  t.is(tokens.filter((x) => x === 'token-1').length, 8);
  t.is(tokens.filter((x) => x === 'token-2').length, 8);
  t.deepEqual(upstream.seen.filter((r) => r.token === 'token-2').map((r) => r.body!.toString()).sort(), [...bodies].sort());
});

async function expectRefusalAnswer(t: ExecutionContext, response: Response) {
  t.is(response.status, 409);
  t.is(response.headers.get('www-authenticate'), null, "the upstream's challenge is never relayed");
  const { rpc, problem } = await mcpErrorOf(response);
  t.is(rpc?.code, -32010);
  t.is(problem.connector_state, 'disconnected');
  t.regex(problem.detail, /asks for authorization \(HTTP 401\)/);
}

test('a 401 to the retry is reported as a refusal of the fresh token, with its challenge, and answered 409', async (t) => {
  const { upstream, routes, proxy } = await setup(t, (u) => refreshingSource(u.url));
  upstream.judge = (token) => ({ status: 401, challenge: `Bearer error="invalid_token", resource_metadata="http://127.0.0.1:1/prm", scope="a b"` });
  await expectRefusalAnswer(t, await post(proxy.mcpUrl('conn'), '{"jsonrpc":"2.0","id":1,"method":"ping"}'));
  t.deepEqual(upstream.seen.map((r) => r.token), ['token-1', 'token-2'], 'retried once, never twice');
  t.deepEqual((routes as ReturnType<typeof refreshingSource>).refusals, [
    { sealedToken: 'sealed-2', status: 401, challenge: { resourceMetadata: 'http://127.0.0.1:1/prm', scope: 'a b' } },
  ]);
});

test('when the refresh is refused the 401 is reported once for that token, and every caller gets the 409', async (t) => {
  const source = (u: AuthUpstream) => refreshingSource(u.url, { answer: () => Promise.reject(new Error('no refreshable grant')) });
  const { upstream, routes, proxy } = await setup(t, source);
  for (let i = 0; i < 3; i++) {
    await expectRefusalAnswer(t, await post(proxy.mcpUrl('conn'), '{"jsonrpc":"2.0","id":1,"method":"ping"}'));
  }
  t.deepEqual(upstream.seen.map((r) => r.token), ['token-1', 'token-1', 'token-1']);
  const { refreshCalls, refusals } = routes as ReturnType<typeof refreshingSource>;
  t.deepEqual(refreshCalls, ['sealed-1'], 'the refusal is remembered');
  t.deepEqual(refusals.map((r) => r.sealedToken), ['sealed-1'], 'one report for the token, shared by every caller');
  t.deepEqual(refusals[0]!.challenge, { resourceMetadata: null, scope: null });
});

test('a refresh that leaves the connector disconnected (invalid_grant) is answered 409 without a retry', async (t) => {
  const source = (u: AuthUpstream) => refreshingSource(u.url, { answer: async () => ({ kind: 'not_connected', state: 'disconnected' }) });
  const { upstream, proxy } = await setup(t, source);
  await expectRefusalAnswer(t, await post(proxy.mcpUrl('conn'), '{}'));
  t.is(upstream.seen.length, 1);
});

test('a GET stream refused with 401 is opened again with the new token', async (t) => {
  const { upstream, proxy } = await setup(t, (u) => refreshingSource(u.url));
  const response = await fetch(proxy.mcpUrl('conn'), { headers: { accept: 'text/event-stream' } });
  t.is(response.status, 200);
  t.is(response.headers.get('content-type'), 'text/event-stream');
  t.is(await response.text(), 'event: message\ndata: {"hello":"stream"}\n\n');
  t.deepEqual(upstream.seen.map((r) => [r.method, r.token]), [['GET', 'token-1'], ['GET', 'token-2']]);
});

test('a body over the retry limit is not sent twice: the caller is asked to resend, and the next request carries the new token', async (t) => {
  const { upstream, proxy } = await setup(t, (u) => new RouteCache(refreshingSource(u.url)), { retryBodyLimitBytes: 1024 });
  const large = await post(proxy.mcpUrl('conn'), Buffer.alloc(4096, 'x'));
  t.is(large.status, 503);
  t.is(large.headers.get('retry-after'), '0');
  t.is(large.headers.get('www-authenticate'), null);
  t.regex((await mcpErrorOf(large)).problem.detail ?? '', /renewed/);
  const small = await post(proxy.mcpUrl('conn'), 'small');
  t.is(small.status, 200);
  t.is(await small.text(), 'small');
  t.deepEqual(upstream.seen.map((r) => r.token), ['token-1', 'token-2'], 'the next request went out with the new token at once');
});

test('through the route cache, an MCP client never notices the refresh, and later calls carry the new token', async (t) => {
  const upstream = await startTokenMcpServer({ token: 'token-1' });
  const source = refreshingSource(upstream.url);
  const proxy = await startProxy(new RouteCache(source, { ttlMs: 60_000 }));
  t.teardown(async () => {
    await proxy.close();
    await upstream.close();
  });
  const { client } = await connectClient(proxy.mcpUrl('conn'));
  t.deepEqual((await client.callTool({ name: 'echo', arguments: { text: 'before' } })).content, [{ type: 'text', text: 'before' }]);

  upstream.setToken('token-2'); // the server no longer takes token-1
  const seenBefore = upstream.seenAuthorization.length;
  t.deepEqual((await client.callTool({ name: 'echo', arguments: { text: 'after' } })).content, [{ type: 'text', text: 'after' }]);
  t.deepEqual((await client.callTool({ name: 'echo', arguments: { text: 'again' } })).content, [{ type: 'text', text: 'again' }]);
  t.deepEqual(upstream.seenAuthorization.slice(seenBefore), ['Bearer token-1', 'Bearer token-2', 'Bearer token-2']);
  t.deepEqual(source.refreshCalls, ['sealed-1']);
  await client.close();
});

test('a 401 to a route without a token is reported with the challenge and answered 409; the client never sees the challenge', async (t) => {
  const { upstream, routes, proxy } = await setup(t, (u) => {
    const source = refreshingSource(u.url);
    return Object.assign(source, { get: async () => ({ kind: 'connected' as const, target: u.url }) });
  });
  upstream.judge = () => ({ status: 401, challenge: 'Bearer resource_metadata="http://127.0.0.1:1/prm"' });
  await expectRefusalAnswer(t, await post(proxy.mcpUrl('conn'), '{}'));
  t.is(upstream.seen.length, 1, 'nothing to refresh, nothing retried');
  t.deepEqual((routes as ReturnType<typeof refreshingSource>).refreshCalls, []);
  t.deepEqual((routes as ReturnType<typeof refreshingSource>).refusals, [
    { sealedToken: null, status: 401, challenge: { resourceMetadata: 'http://127.0.0.1:1/prm', scope: null } },
  ]);
});

test('a 401 where no registry can be told (a static route table) is a 502 of the service, not the upstream 401', async (t) => {
  const { upstream, proxy } = await setup(t, (u) => {
    const { get } = refreshingSource(u.url);
    return { get };
  });
  const response = await post(proxy.mcpUrl('conn'), '{}');
  t.is(response.status, 502);
  t.is(response.headers.get('www-authenticate'), null);
  t.regex((await mcpErrorOf(response)).problem.detail ?? '', /refused the request \(HTTP 401\)/);
  t.is(upstream.seen.length, 1);
});
