// The per-owner request rate limit on the REST API: the caller middleware and the problem mapper
// of the real API in a Koa app on loopback. Past its burst an owner gets 429 problem details with
// Retry-After and the IETF RateLimit fields; another owner, and the open paths, are not affected.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import Koa from 'koa';
import { callerMiddleware } from '../../api/caller-middleware';
import { problemMiddleware } from '../../api/problem-middleware';
import { sha256Hex } from '../../callers/api-keys';
import { createAuthenticator } from '../../callers/authenticator';
import { OwnerRateLimit } from '../../callers/owner-rate-limit';
import { createLogger } from '../../platform/logger';

test('past its burst an owner gets 429 with Retry-After, RateLimit-Policy and RateLimit', async (t) => {
  const authenticator = createAuthenticator({
    enabled: true,
    apiKeys: [{ subject: 'a', sha256: sha256Hex('key-a-rest'), admin: false }, { subject: 'b', sha256: sha256Hex('key-b-rest'), admin: false }],
    jwt: null,
  }, fetch);
  const app = new Koa();
  app.silent = true;
  app.use(problemMiddleware(createLogger('rate-test', 'silent')));
  // One request per 100 s: no refill while the test runs, however slow the machine.
  app.use(callerMiddleware(authenticator, new OwnerRateLimit({ perSecond: 0.01, burst: 2 })));
  app.use((ctx) => { ctx.body = { ok: true }; });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = async (path: string, key?: string) => {
    const res = await fetch(base + path, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    return { status: res.status, headers: res.headers, body: await res.json() as { type?: string; detail?: string } };
  };

  t.is((await get('/api/v1/connectors', 'key-a-rest')).status, 200);
  t.is((await get('/api/v1/connectors', 'key-a-rest')).status, 200);
  const refused = await get('/api/v1/connectors', 'key-a-rest');
  t.is(refused.status, 429);
  t.is(refused.body.type, 'https://connector-registry.dev/problems/rate-limited');
  t.regex(refused.body.detail ?? '', /CONNECTOR__RATE_LIMIT_PER_OWNER/);
  // About 100 s to the next token (less by however long the requests took).
  const retryAfter = Number(refused.headers.get('retry-after'));
  t.true(retryAfter >= 1 && retryAfter <= 100, `Retry-After: ${retryAfter}`);
  t.is(refused.headers.get('ratelimit-policy'), '"owner";q=2;w=200');
  t.is(refused.headers.get('ratelimit'), `"owner";r=0;t=${retryAfter}`);
  t.is((await get('/api/v1/connectors', 'key-b-rest')).status, 200, 'another owner is not affected');
  t.is((await get('/healthz')).status, 200, 'open paths are not counted');
  t.is((await get('/api/v1/connectors', 'not-a-key')).status, 401, 'an unknown credential is refused as before, never counted');
});
