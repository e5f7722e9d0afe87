// Enterprise-managed authorization (SEP-990) against an enterprise identity provider that
// exchanges ID tokens for ID-JAGs (enterprise-idp.ts), a real authorization server taking them
// with the JWT bearer grant (oidc-provider, jwt-bearer-grant.ts) and an MCP server that verifies
// its JWTs: every bad combination of the connect body refused with 422 naming the field (nothing
// sent anywhere, the connector as it was); a connect, a tool call, renewal from the identity
// assertion before expiry and after a 401; once the ID token has expired, the connector asking
// for a fresh one (auth_required, no URL to open) and a connect with one bringing it back; and no
// secret or token in an answer, the logs or the data directory in plaintext.
// The conformance suite's own scenario runs in conformance-extensions.test.ts.
import test from 'ava';
import { SignJWT } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectorWorkflowId } from '../../workflows/messages';
import { startEnterpriseWorld, type EnterpriseIdp, type EnterpriseWorld, type ProtectedMcpServer } from '../fixtures/oauth';
import { eventually, filesContaining, startTestStack, type TestStack } from '../helpers/test-stack';

const TOKEN_TTL_S = 6;

let stack: TestStack;
let world: EnterpriseWorld;
let idp: EnterpriseIdp;
let mcp: ProtectedMcpServer;

test.before(async () => {
  world = await startEnterpriseWorld({ accessTokenTtl: TOKEN_TTL_S });
  ({ idp, mcp } = world);
  stack = await startTestStack();
});

test.after.always(async () => {
  await stack?.stop();
  await world?.close();
});

async function created(): Promise<{ id: string; mcpUrl: string }> {
  const { body } = await stack.api('POST', '/api/v1/connectors', { url: mcp.url, match_preset: false });
  return { id: body.id, mcpUrl: body.mcp_url };
}

async function callTool(mcpUrl: string): Promise<string> {
  const client = new Client({ name: 'enterprise-managed-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  await client.close();
  return JSON.stringify(result.content);
}

const connectBody = (idToken: string) => world.connectBody(idToken);

/** A well-formed JWT: the service reads only its exp (the identity provider is the one to verify it). */
async function idToken(expiresInSeconds: number): Promise<string> {
  const key = new TextEncoder().encode('k'.repeat(32));
  return new SignJWT({ sub: 'user' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + expiresInSeconds).sign(key);
}

async function grant(overrides: Record<string, unknown>): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {
    grant: 'enterprise_managed', client_id: 'svc', client_secret: 'secret', id_token: await idToken(3600),
    idp_token_endpoint: 'http://127.0.0.1:9/token', idp_client_id: 'idp-svc', ...overrides,
  };
  for (const [k, v] of Object.entries(body)) if (v === undefined) delete body[k];
  return body;
}

const invalidBodies: [string, () => Promise<Record<string, unknown>>, string][] = [
  ['no id_token', () => grant({ id_token: undefined }), 'id_token'],
  ['an id_token that is no JWT', () => grant({ id_token: 'opaque' }), 'id_token'],
  ['an expired id_token', async () => grant({ id_token: await idToken(-60) }), 'id_token'],
  ['no identity provider token endpoint', () => grant({ idp_token_endpoint: undefined }), 'idp_token_endpoint'],
  ['an identity provider over plain http off this machine', () => grant({ idp_token_endpoint: 'http://idp.example/token' }), 'idp_token_endpoint'],
  ['an identity provider at a forbidden address', () => grant({ idp_token_endpoint: 'https://169.254.169.254/token' }), 'idp_token_endpoint'],
  ['no identity provider client', () => grant({ idp_client_id: undefined }), 'idp_client_id'],
  ['no authorization server client', () => grant({ client_id: undefined }), 'client_id'],
  ['neither a secret nor a key for the authorization server', () => grant({ client_secret: undefined }), 'client_secret'],
  ['a key that is no PEM key', () => grant({ client_secret: undefined, private_key_pem: 'not a key' }), 'private_key_pem'],
  ['an access token beside the grant', () => grant({ access_token: 't' }), 'access_token'],
  ['an id_token without the grant', async () => ({ id_token: await idToken(3600) }), 'id_token'],
  ['identity provider fields with client credentials', () => grant({ grant: 'client_credentials' }), 'id_token'],
  ['an identity provider secret without the grant', async () => ({ idp_client_secret: 'x' }), 'idp_client_secret'],
];

for (const [what, body, field] of invalidBodies) {
  test(`connect refuses ${what} with 422 problem details naming ${field}`, async (t) => {
    const { body: created } = await stack.api('POST', '/api/v1/connectors', { url: 'http://127.0.0.1:9/mcp', match_preset: false });
    const res = await stack.api('POST', `/api/v1/connectors/${created.id}/connect`, await body());
    t.is(res.status, 422, res.text);
    t.regex(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    t.true((res.body.errors as { path: string }[]).some((e) => e.path === field), res.text);
    t.is((await stack.api('GET', `/api/v1/connectors/${created.id}`)).body.state, 'created');
  });
}

test.serial('connected without a consent page, usable, renewed from the assertion before expiry and after a 401, never shown', async (t) => {
  const { id, mcpUrl } = await created();
  const idToken = await idp.idToken('alice', 3600);
  const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, connectBody(idToken));
  t.is(res.status, 200, res.text);
  t.is(res.body.state, 'connected');
  t.is(res.body.auth_kind, 'enterprise_managed');
  t.is(res.body.auth_request, null, 'no authorization URL');
  t.regex(await callTool(mcpUrl), /mcp:read/);

  // Obtained again on the refresh timer (a third of the lifetime before expiry): a new exchange, a new ID-JAG.
  const handle = stack.temporal.workflow.getHandle(connectorWorkflowId(id));
  const route = async () => ((await handle.query('route' as never)) as { token: string }).token;
  const first = await route();
  const exchanged = idp.exchanges();
  await eventually(async () => ((await route()) !== first ? true : undefined), TOKEN_TTL_S * 3000, 'a token obtained again before expiry');
  t.true(idp.exchanges() > exchanged, 'through the identity provider');
  t.is((await stack.api('GET', `/api/v1/connectors/${id}`)).body.state, 'connected');

  // The server refuses the token in force: the proxy asks for a new one, and the call goes through.
  const refused = mcp.seenTokens[mcp.seenTokens.length - 1]!;
  mcp.refuseToken(refused);
  t.regex(await eventually(async () => callTool(mcpUrl).catch(() => undefined), 15_000, 'a call after the 401'), /mcp:read/);
  t.not(mcp.seenTokens[mcp.seenTokens.length - 1], refused);

  const record = await stack.api('GET', `/api/v1/connectors/${id}`);
  t.is(record.body.state, 'connected');
  for (const secret of [world.secrets.client, world.secrets.idp, idToken]) {
    t.false(record.text.includes(secret));
    t.deepEqual(filesContaining(stack.dataDir, secret), [], 'a secret or the ID token in the data directory, logs included');
  }
  for (const token of mcp.seenTokens) t.deepEqual(filesContaining(stack.dataDir, token.slice(-43)), [], 'an access token');
});

test.serial('once the ID token has expired and no refresh token is held, the connector asks for a fresh id_token; a connect with one brings it back', async (t) => {
  const { id, mcpUrl } = await created();
  const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, connectBody(await idp.idToken('bob', 8)));
  t.is(res.status, 200, res.text);
  t.is(res.body.state, 'connected');
  const asking = await eventually(async () => {
    const record = await stack.api('GET', `/api/v1/connectors/${id}`);
    return record.body.state === 'auth_required' ? record.body : undefined;
  }, TOKEN_TTL_S * 3000, 'auth_required once nothing renews');
  t.like(asking.auth_request, { type: 'assertion', needs: 'id_token', issuer: idp.issuer });
  t.false('authorization_endpoint' in asking.auth_request, 'no browser flow to open');
  t.regex(asking.auth_request.message, /fresh id_token/);
  t.is(asking.disconnect_reason, null);
  const events = (await stack.api('GET', `/api/v1/connectors/${id}/events?limit=100`)).body.items as { from: string; to: string; actor: string; reason: string }[];
  t.like(events.at(-1), { from: 'connected', to: 'auth_required', actor: 'service' });
  t.regex(events.at(-1)!.reason, /id_token\) has expired.*fresh id_token/);
  // The proxy says what is needed instead of forwarding a dead token.
  const refused = await callTool(mcpUrl).then(() => null, (err: Error) => err.message);
  t.truthy(refused, 'no call while the assertion is needed');
  const problem = await fetch(mcpUrl, { headers: { accept: 'text/event-stream' } });
  t.is(problem.status, 409);
  const body = await problem.json() as { connector_state: string; needs?: string; detail: string; authorization_url?: string };
  t.like(body, { connector_state: 'auth_required', needs: 'id_token' });
  t.regex(body.detail, /fresh id_token/);
  t.is(body.authorization_url, undefined, 'no URL to open: a connect must bring the token');

  const again = await stack.api('POST', `/api/v1/connectors/${id}/connect`, connectBody(await idp.idToken('bob', 3600)));
  t.is(again.status, 200, again.text);
  t.like(again.body, { state: 'connected', auth_request: null, auth_kind: 'enterprise_managed' });
  t.regex(await callTool(mcpUrl), /mcp:read/);
});
