// Enterprise-managed authorization (SEP-990) with the caller's own sign-in as the identity
// assertion: the enterprise identity provider (enterprise-idp.ts) is also the platform's
// (CONNECTOR__AUTH_ISSUER), where callers sign in, so an id_token it issued is verified by the
// service and must name the caller. Another user's sign-in token is refused (403), a token that
// claims the issuer but does not verify is refused (422 naming id_token), nothing is sent to the
// identity provider for either, and the caller's own connects.
import test from 'ava';
import { SignJWT, generateKeyPair } from 'jose';
import { startEnterpriseWorld, type EnterpriseIdp, type EnterpriseWorld } from '../fixtures/oauth';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { undeclaredAnswers } from '../helpers/declared-answers';

let stack: TestStack;
let world: EnterpriseWorld;
let idp: EnterpriseIdp;

test.before(async () => {
  world = await startEnterpriseWorld();
  idp = world.idp;
  stack = await startTestStack({
    CONNECTOR__AUTH_ISSUER: idp.issuer,
    // Authentication on blocks private networks; the issuers and the MCP server here are on loopback.
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
  });
});

test.after('no handler answered a status or problem type its operation does not declare', (t) => {
  t.deepEqual(undeclaredAnswers(stack.logFile), []);
});

test.after.always(async () => {
  await stack?.stop();
  await world?.close();
});

async function signedIn(sub: string): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await idp.accessToken(sub, `http://127.0.0.1:${stack.port}`)}` };
}

const connectBody = (idToken: string) => world.connectBody(idToken);

async function createdBy(headers: Record<string, string>): Promise<string> {
  const res = await stack.api('POST', '/api/v1/connectors', { url: world.mcp.url, match_preset: false }, headers);
  if (res.status !== 201) throw new Error(res.text);
  return res.body.id;
}

test.serial("another user's sign-in token is refused with 403, nothing exchanged; the caller's own connects", async (t) => {
  const alice = await signedIn('alice');
  const id = await createdBy(alice);
  const exchanged = idp.exchanges();
  const foreign = await stack.api('POST', `/api/v1/connectors/${id}/connect`, connectBody(await idp.idToken('bob', 3600)), alice);
  t.is(foreign.status, 403, foreign.text);
  t.regex(foreign.headers.get('content-type') ?? '', /application\/problem\+json/);
  t.regex(foreign.body.type, /forbidden$/);
  t.regex(foreign.body.detail, /another user's sign-in/);
  t.is(idp.exchanges(), exchanged, 'the token never reached the identity provider');
  t.is((await stack.api('GET', `/api/v1/connectors/${id}`, undefined, alice)).body.state, 'created');

  const own = await stack.api('POST', `/api/v1/connectors/${id}/connect`, connectBody(await idp.idToken('alice', 3600)), alice);
  t.is(own.status, 200, own.text);
  t.like(own.body, { state: 'connected', auth_kind: 'enterprise_managed' });
  t.true(idp.exchanges() > exchanged);
});

test.serial("a token naming the platform's issuer that its keys do not verify is refused with 422 naming id_token", async (t) => {
  const alice = await signedIn('alice');
  const id = await createdBy(alice);
  const { privateKey } = await generateKeyPair('ES256');
  const forged = await new SignJWT({}).setProtectedHeader({ alg: 'ES256' }).setIssuer(idp.issuer).setSubject('alice')
    .setAudience('idp-svc').setIssuedAt().setExpirationTime('1h').sign(privateKey);
  const exchanged = idp.exchanges();
  const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, connectBody(forged), alice);
  t.is(res.status, 422, res.text);
  t.true((res.body.errors as { path: string; message: string }[]).some((e) => e.path === 'id_token' && /does not verify/.test(e.message)), res.text);
  t.is(idp.exchanges(), exchanged);
  t.is((await stack.api('GET', `/api/v1/connectors/${id}`, undefined, alice)).body.state, 'created');
});
