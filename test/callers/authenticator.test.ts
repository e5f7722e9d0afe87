// Every way a credential can be wrong, against a real JWKS served on loopback and tokens signed
// with jose; and API keys, right and wrong.
import test from 'ava';
import { createHmac } from 'node:crypto';
import { SignJWT, base64url } from 'jose';
import { IdentityProviderUnavailable, Unauthenticated, mayAccess, OPEN_CALLER } from '../../callers/caller';
import { sha256Hex } from '../../callers/api-keys';
import { createAuthenticator, type Authenticator } from '../../callers/authenticator';
import { startJwtIssuer, type JwtIssuer } from '../fixtures/jwt-issuer';

const BASE = 'http://127.0.0.1:8080';
const MCP_URL = `${BASE}/api/v1/connectors/6f1c7d52-0d43-4c4e-9d0b-2f1d2b1f0a11/mcp`;
let idp: JwtIssuer;
let auth: Authenticator;

test.before(async () => {
  idp = await startJwtIssuer();
  auth = createAuthenticator({
    enabled: true,
    apiKeys: [
      { subject: 'team-a', sha256: sha256Hex('key-of-team-a'), admin: false },
      { subject: 'ops', sha256: sha256Hex('key-of-ops'), admin: true },
    ],
    jwt: { issuer: idp.issuer, audiences: [BASE], subjectClaim: 'sub', rolesClaim: 'roles', adminRole: 'connector-admin' },
  }, (input, init) => fetch(input, init));
});
test.after.always(() => idp?.close());

const bearer = (credential: string) => `Bearer ${credential}`;
async function refused(t: import('ava').ExecutionContext, header: string | undefined, pattern: RegExp, extra: string[] = []) {
  const error = await t.throwsAsync(auth.authenticate(header, extra), { instanceOf: Unauthenticated });
  t.regex(error!.message, pattern);
  return error!;
}

test('API keys: the right key names its qualified subject and role; a wrong or near key is refused', async (t) => {
  t.deepEqual(await auth.authenticate(bearer('key-of-team-a')), { subject: 'key:team-a', displayName: 'team-a', admin: false });
  t.deepEqual(await auth.authenticate(bearer('key-of-ops')), { subject: 'key:ops', displayName: 'ops', admin: true });
  await refused(t, bearer('key-of-team-b'), /not valid/);
  await refused(t, bearer('key-of-team-a '.trim() + 'x'), /not valid/);
});

test('no header, another scheme, two credentials, garbage: 401 without echoing anything', async (t) => {
  t.false((await refused(t, undefined, /needs a Bearer credential/)).given);
  for (const header of ['Basic dXNlcjpwYXNz', 'Bearer a b', 'Bearer', 'Bearer \u00e9\u00e9', `Bearer key-of-team-a, Bearer key-of-ops`]) {
    const error = await refused(t, header, /not a single Bearer credential|not valid/);
    t.false(error.message.includes('key-of'), 'the credential is never echoed');
  }
});

test('a valid access token names its qualified subject and its roles; the admin role makes an admin', async (t) => {
  t.deepEqual(await auth.authenticate(bearer(await idp.sign({ sub: 'alice', aud: BASE }))), { subject: 'oidc:alice', displayName: 'alice', admin: false });
  t.deepEqual(await auth.authenticate(bearer(await idp.sign({ sub: 'root', aud: BASE, roles: ['x', 'connector-admin'] }))), { subject: 'oidc:root', displayName: 'root', admin: true, roles: ['x', 'connector-admin'] });
  t.deepEqual(await auth.authenticate(bearer(await idp.sign({ sub: 'root', aud: BASE, roles: 'a connector-admin' }))), { subject: 'oidc:root', displayName: 'root', admin: true, roles: ['a', 'connector-admin'] });
});

test('the display name is the token\'s email, else its name, else the subject', async (t) => {
  const named = async (claims: Record<string, unknown>) => (await auth.authenticate(bearer(await idp.sign({ sub: 'u-7f3a', aud: BASE, ...claims })))).displayName;
  t.is(await named({ email: 'ann@example.com', name: 'Ann Lee' }), 'ann@example.com');
  t.is(await named({ name: 'Ann Lee' }), 'Ann Lee');
  t.is(await named({ email: 42, name: '' }), 'u-7f3a');
  t.is(await named({ name: 'moc.elpmaxe@\u202eann' }), 'moc.elpmaxe@ann', 'no bidi override reaches the page');
});

test('a key and an identity provider\'s user of the same name are two owners that never meet', async (t) => {
  // The shared authenticator: a verifier of its own would fetch the JWKS beside the rotation test's count.
  const key = await auth.authenticate(bearer('key-of-team-a'));
  const user = await auth.authenticate(bearer(await idp.sign({ sub: 'team-a', aud: BASE })));
  t.not(key.subject, user.subject);
  t.false(mayAccess(key, user.subject), 'the key cannot act on the user\'s connectors');
  t.false(mayAccess(user, key.subject), 'nor the user on the key\'s');
});

test('audience: another is refused; the connector\'s mcp_url only where it is offered (its MCP path)', async (t) => {
  await refused(t, bearer(await idp.sign({ sub: 'alice', aud: 'https://other.example' })), /aud/);
  const forResource = await idp.sign({ sub: 'alice', aud: MCP_URL });
  await refused(t, bearer(forResource), /aud/);
  t.is((await auth.authenticate(bearer(forResource), [MCP_URL])).subject, 'oidc:alice');
});

test('expired, not yet valid, no exp, wrong issuer, no subject: refused', async (t) => {
  await refused(t, bearer(await idp.sign({ sub: 'alice', aud: BASE }, { expiresIn: Math.floor(Date.now() / 1000) - 120 })), /expired/);
  await refused(t, bearer(await idp.sign({ sub: 'alice', aud: BASE }, { notBefore: Math.floor(Date.now() / 1000) + 600 })), /nbf/);
  await refused(t, bearer(await idp.sign({ sub: 'alice', aud: BASE, iss: 'https://evil.example' })), /iss/);
  await refused(t, bearer(await idp.sign({ aud: BASE })), /sub claim/);
  const key = idp.published[0]!;
  const noExp = await new SignJWT({ sub: 'alice', aud: BASE, iss: idp.issuer }).setProtectedHeader({ alg: 'ES256', kid: key.kid }).sign(key.privateKey);
  await refused(t, bearer(noExp), /exp/);
});

test('a foreign key, alg none and HMAC signed with the public key are refused', async (t) => {
  const foreign = await idp.newKey('key-1'); // same kid, another key
  await refused(t, bearer(await idp.sign({ sub: 'alice', aud: BASE }, { key: foreign })), /not valid/);
  const claims = base64url.encode(JSON.stringify({ sub: 'alice', aud: BASE, iss: idp.issuer, exp: Math.floor(Date.now() / 1000) + 300 }));
  const none = `${base64url.encode(JSON.stringify({ alg: 'none', kid: 'key-1' }))}.${claims}.`;
  await refused(t, bearer(none), /not valid/);
  const header = base64url.encode(JSON.stringify({ alg: 'HS256', kid: 'key-1' }));
  const secret = JSON.stringify(idp.published[0]!.publicJwk);
  const mac = createHmac('sha256', secret).update(`${header}.${claims}`).digest('base64url');
  await refused(t, bearer(`${header}.${claims}.${mac}`), /not valid/);
});

test('key rotation: a token signed with a new key is accepted once the JWKS publishes it; an unknown kid refetches at most once per cooldown', async (t) => {
  const rotated = await idp.newKey(`key-rotated-${Date.now()}`);
  const before = idp.jwksRequests;
  await refused(t, bearer(await idp.sign({ sub: 'alice', aud: BASE }, { key: rotated })), /unknown key|not valid/);
  const afterFirst = idp.jwksRequests;
  await refused(t, bearer(await idp.sign({ sub: 'alice', aud: BASE }, { key: await idp.newKey('key-never') })), /unknown key|not valid/);
  t.true(idp.jwksRequests - before <= 1, 'unknown kids do not hammer the identity provider');
  t.is(idp.jwksRequests, afterFirst);
  // A fresh verifier (as after the cooldown) sees the published rotation.
  idp.published = [...idp.published, rotated];
  const fresh = createAuthenticator({ enabled: true, apiKeys: [], jwt: { issuer: idp.issuer, audiences: [BASE], subjectClaim: 'sub', rolesClaim: 'roles', adminRole: 'connector-admin' } }, (i, init) => fetch(i, init));
  t.is((await fresh.authenticate(bearer(await idp.sign({ sub: 'alice', aud: BASE }, { key: rotated })))).subject, 'oidc:alice');
});

test('an oversized token is refused before it is parsed', async (t) => {
  await refused(t, bearer(`${'a'.repeat(9000)}.b.c`), /too large/);
});

test('an identity provider that cannot be reached is the service\'s problem (503), not the caller\'s', async (t) => {
  const down = createAuthenticator({ enabled: true, apiKeys: [], jwt: { issuer: 'http://127.0.0.1:9', audiences: [BASE], subjectClaim: 'sub', rolesClaim: 'roles', adminRole: 'connector-admin' } }, (i, init) => fetch(i, init));
  await t.throwsAsync(down.authenticate(bearer(await idp.sign({ sub: 'alice', aud: BASE }))), { instanceOf: IdentityProviderUnavailable });
});

test('with authentication off every caller is the open caller, who sees everything', async (t) => {
  const off = createAuthenticator({ enabled: false, apiKeys: [], jwt: null }, fetch);
  t.is(await off.authenticate(undefined), OPEN_CALLER);
  t.true(mayAccess(OPEN_CALLER, 'anyone') && mayAccess(OPEN_CALLER, null));
  t.true(mayAccess({ subject: 'a', displayName: 'a', admin: false }, 'a'));
  t.false(mayAccess({ subject: 'a', displayName: 'a', admin: false }, 'b'));
  t.false(mayAccess({ subject: 'a', displayName: 'a', admin: false }, null), 'records made with authentication off are for admins');
});
