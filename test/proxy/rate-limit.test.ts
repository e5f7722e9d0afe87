// The per-owner request rate limit on the MCP path, through the real proxy with API keys: an
// owner past its burst gets 429 (a JSON-RPC error whose data is the problem) with Retry-After and the IETF RateLimit fields
// before anything goes upstream; another owner is not affected. (A rate of one request per
// 100 s, so that no refill can happen while the test runs, however slow the machine.)
import test from 'ava';
import { sha256Hex } from '../../callers/api-keys';
import { createAuthenticator } from '../../callers/authenticator';
import { OwnerRateLimit } from '../../callers/owner-rate-limit';
import { CallerGate } from '../../proxy/caller-gate';
import { staticRoutes } from '../../proxy/static-routes';
import { startTokenMcpServer } from '../fixtures/token-mcp-server';
import { startProxy } from './proxy-harness';
import { mcpErrorIn } from './mcp-answers';
import { RPC_ERROR } from '../../proxy/problem-response';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

test('past its burst an owner gets 429 with Retry-After, RateLimit-Policy and RateLimit; nothing more goes upstream; another owner goes on', async (t) => {
  const upstream = await startTokenMcpServer({ token: null });
  const authenticator = createAuthenticator({
    enabled: true,
    apiKeys: [{ subject: 'a', sha256: sha256Hex('key-a-rate'), admin: false }, { subject: 'b', sha256: sha256Hex('key-b-rate'), admin: false }],
    jwt: null,
  }, fetch);
  const callers = new CallerGate({
    authenticator, baseUrl: 'http://127.0.0.1:1', maxStreamsPerOwner: 64, rateLimit: new OwnerRateLimit({ perSecond: 0.01, burst: 3 }),
  });
  const proxy = await startProxy(staticRoutes({
    ca: { kind: 'connected', owner: 'key:a', target: upstream.url },
    cb: { kind: 'connected', owner: 'key:b', target: upstream.url },
  }), { callers });
  t.teardown(async () => {
    await proxy.close();
    await upstream.close();
  });
  const post = async (id: string, key: string) => {
    const res = await fetch(proxy.mcpUrl(id), {
      method: 'POST', body: JSON.stringify(INIT),
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  for (let i = 0; i < 3; i++) t.is((await post('ca', 'key-a-rate')).status, 200, `request ${i + 1}`);
  const seen = upstream.seenAuthorization.length;
  const refused = await post('ca', 'key-a-rate');
  t.is(refused.status, 429);
  const { rpc, problem } = mcpErrorIn(refused.status, refused.headers.get('content-type'), refused.text);
  t.is(rpc?.code, RPC_ERROR.rateLimited);
  t.is(problem.type, 'https://connector-registry.dev/problems/rate-limited');
  t.is(problem.retry_after, Number(refused.headers.get('retry-after')));
  t.true(Number(refused.headers.get('retry-after')) >= 1);
  t.is(refused.headers.get('ratelimit-policy'), '"owner";q=3;w=300');
  t.regex(refused.headers.get('ratelimit') ?? '', /^"owner";r=0;t=\d+$/);
  t.is(upstream.seenAuthorization.length, seen, 'the refused request never reached the MCP server');
  t.is((await post('cb', 'key-b-rate')).status, 200, 'another owner is not affected');
  // Past its rate, an owner learns nothing about ids: another's connector and none at all answer alike.
  const foreign = await post('cb', 'key-a-rate');
  const nowhere = await post('00000000-0000-4000-8000-000000000000', 'key-a-rate');
  t.is(foreign.status, 429);
  t.is(nowhere.status, 429);
});
