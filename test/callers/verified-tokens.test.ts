// The cache of verified access tokens: an entry answers only for the very token, only while it
// is valid, only for an audience it names; it is bounded; and through the authenticator a token
// is known without waiting once verified, and never before.
import test from 'ava';
import { createAuthenticator } from '../../callers/authenticator';
import { VerifiedTokens } from '../../callers/verified-tokens';
import { credentialDigest } from '../../callers/api-keys';
import { startJwtIssuer } from '../fixtures/jwt-issuer';

const BASE = 'http://127.0.0.1:8080';
const alice = { subject: 'oidc:alice', displayName: 'alice', admin: false };

test('the digest the authenticator computes once per request keys the same entry as keyOf, and no other token', (t) => {
  const token = 'header.payload.signature';
  t.is(VerifiedTokens.keyOfDigest(credentialDigest(token)), VerifiedTokens.keyOf(token));
  t.not(VerifiedTokens.keyOfDigest(credentialDigest('header.payload.signaturf')), VerifiedTokens.keyOf(token));
});

test('an entry answers for the same token only, until its end, for an audience it names', (t) => {
  let now = 1_000;
  const cache = new VerifiedTokens(10, () => now);
  const key = VerifiedTokens.keyOf('header.payload.signature');
  cache.remember(key, { caller: alice, audiences: [BASE], validUntilMs: 2_000 });
  t.deepEqual(cache.lookup(key, [BASE]), alice);
  t.is(cache.lookup(VerifiedTokens.keyOf('header.payload.signaturf'), [BASE]), null, 'another token, however close');
  t.is(cache.lookup(key, ['https://other.example']), null, 'an audience the token does not name');
  now = 2_000;
  t.is(cache.lookup(key, [BASE]), null, 'past its end');
  t.is(cache.size, 0, 'and dropped');
  cache.remember(key, { caller: alice, audiences: [BASE], validUntilMs: 1_500 });
  t.is(cache.size, 0, 'an entry already over is not kept');
});

test('the cache is bounded: the oldest entry goes first', (t) => {
  const cache = new VerifiedTokens(3, () => 0);
  for (let i = 0; i < 5; i++) cache.remember(`k${i}`, { caller: alice, audiences: [BASE], validUntilMs: 10 });
  t.is(cache.size, 3);
  t.is(cache.lookup('k0', [BASE]), null);
  t.is(cache.lookup('k1', [BASE]), null);
  t.deepEqual(cache.lookup('k4', [BASE]), alice);
});

test('through the authenticator: known without waiting only once verified, and only where its audience is accepted', async (t) => {
  const idp = await startJwtIssuer();
  t.teardown(() => idp.close());
  const auth = createAuthenticator({
    enabled: true, apiKeys: [],
    jwt: { issuer: idp.issuer, audiences: [BASE], subjectClaim: 'sub', rolesClaim: 'roles', adminRole: 'connector-admin' },
  }, (input, init) => fetch(input, init));
  const mcpUrl = `${BASE}/api/v1/connectors/c1/mcp`;
  const token = await idp.sign({ sub: 'alice', aud: mcpUrl });
  t.is(auth.known(`Bearer ${token}`, [mcpUrl]), null, 'never before a verification');
  await t.throwsAsync(auth.authenticate(`Bearer ${token}`), { message: /aud/ }, 'refused where its audience is not accepted');
  t.is(auth.known(`Bearer ${token}`, [mcpUrl]), null, 'a refusal is not cached');
  t.deepEqual(await auth.authenticate(`Bearer ${token}`, [mcpUrl]), alice);
  t.deepEqual(auth.known(`Bearer ${token}`, [mcpUrl]), alice);
  t.is(auth.known(`Bearer ${token}`, [`${BASE}/api/v1/connectors/c2/mcp`]), null, "another connector's path");
  t.is(auth.known(`Bearer ${token}x`), null, 'a token altered after the verification');
  const jwksBefore = idp.jwksRequests;
  t.deepEqual(await auth.authenticate(`Bearer ${token}`, [mcpUrl]), alice);
  t.is(idp.jwksRequests, jwksBefore);
});
