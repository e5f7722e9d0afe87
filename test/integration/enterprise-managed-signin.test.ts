// Enterprise-managed authorization (SEP-990) with the caller's own sign-in as the identity
// assertion: the enterprise identity provider (enterprise-idp.ts) is also the platform's
// (CONNECTOR__AUTH_ISSUER), where callers sign in, so an id_token it issued is verified by the
// service and must name the caller. Another user's sign-in token is refused (403), a token that
// claims the issuer but does not verify is refused (422 naming id_token), nothing is sent to the
// identity provider for either, and the caller's own connects; with a preset that declares
// enterprise_managed, a connect gives only the id_token.
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
    // The operator's enterprise-managed preset: the console's connect gives only the user's sign-in.
    CONNECTOR__PRESETS: JSON.stringify([{
      url: world.mcp.url, metadata: { name: 'Enterprise tools' }, client_id: 'ema-svc', client_secret: world.secrets.client,
      enterprise_managed: { idp_token_endpoint: idp.tokenEndpoint, idp_client_id: 'idp-svc', idp_client_secret: world.secrets.idp },
    }]),
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

test.serial("a preset's enterprise_managed: the connect gives only the caller's id_token, never another's; the preset's secrets never shown", async (t) => {
  const alice = await signedIn('alice');
  const presets = await stack.api('GET', '/api/v1/connectors/presets', undefined, alice);
  const preset = (presets.body.items as { url: string; fields?: { name: string; in: string }[] }[]).find((p) => p.url === world.mcp.url);
  t.like(preset?.fields?.find((f) => f.name === 'id_token'), { in: 'connect', secret: true, required: true });
  const created = await stack.api('POST', '/api/v1/connectors', { url: world.mcp.url }, alice);
  t.is(created.status, 201, created.text);
  t.like(created.body.preset, { url: world.mcp.url });
  const id = created.body.id as string;

  const none = await stack.api('POST', `/api/v1/connectors/${id}/connect`, {}, alice);
  t.is(none.status, 422, none.text);
  t.true((none.body.errors as { path: string }[]).some((e) => e.path === 'id_token'), none.text);
  const foreign = await stack.api('POST', `/api/v1/connectors/${id}/connect`, { id_token: await idp.idToken('bob', 3600) }, alice);
  t.is(foreign.status, 403, foreign.text);

  const own = await stack.api('POST', `/api/v1/connectors/${id}/connect`, { id_token: await idp.idToken('alice', 3600) }, alice);
  t.is(own.status, 200, own.text);
  t.like(own.body, { state: 'connected', auth_kind: 'enterprise_managed' });
  for (const secret of [world.secrets.client, world.secrets.idp]) t.false(presets.text.includes(secret) || own.text.includes(secret));
});

test.serial('an id_token alone for a connector whose preset does not declare enterprise_managed is refused naming id_token', async (t) => {
  const alice = await signedIn('alice');
  const id = await createdBy(alice);
  const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, { id_token: await idp.idToken('alice', 3600) }, alice);
  t.is(res.status, 422, res.text);
  t.true((res.body.errors as { path: string }[]).some((e) => e.path === 'id_token'), res.text);
});
