// Client credentials for upstreams (SEP-1046) against a real authorization server (oidc-provider
// with the client_credentials grant) and an MCP server that verifies its JWTs: the connect body's
// rules, a connect with a secret and one with a private key, the token requested again before it
// expires and after the server refuses it (the proxy's 401 path), and the credentials never in an
// answer, the logs or the data directory in plaintext.
import { generateKeyPairSync } from 'node:crypto';
import test from 'ava';
import { exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectorWorkflowId } from '../../workflows/messages';
import { startOidcServer, startProtectedMcpServer, type OidcServer, type ProtectedMcpServer } from '../fixtures/oauth';
import { eventually, filesContaining, startTestStack, type TestStack } from '../helpers/test-stack';

const SECRET = `cc-secret-${crypto.randomUUID()}`;
const TOKEN_TTL_S = 6;

let stack: TestStack;
let as: OidcServer;
let mcp: ProtectedMcpServer;
let privateKeyPem: string;

test.before(async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  privateKeyPem = await exportPKCS8(privateKey);
  const grantTypes = ['client_credentials'];
  as = await startOidcServer({
    accessTokenTtl: TOKEN_TTL_S, clientCredentials: true,
    staticClients: [
      { clientId: 'cc-basic', clientSecret: SECRET, authMethod: 'client_secret_basic', redirectUris: [], grantTypes },
      { clientId: 'cc-jwt', authMethod: 'private_key_jwt', redirectUris: [], grantTypes, jwks: { keys: [{ ...(await exportJWK(publicKey)), alg: 'ES256', use: 'sig' }] } },
    ],
  });
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, scopesSupported: ['mcp:read'] });
  // The operator's preset for the server carries the client and its grant: callers connect with an empty body.
  stack = await startTestStack({
    CONNECTOR__PRESETS: JSON.stringify([{ url: mcp.url, metadata: { name: 'Machine API' }, client_id: 'cc-basic', client_secret: SECRET, client_credentials: {} }]),
  });
});

test.after.always(async () => {
  await stack?.stop();
  await mcp?.close();
  await as?.close();
});

async function created(): Promise<{ id: string; mcpUrl: string }> {
  const { body } = await stack.api('POST', '/api/v1/connectors', { url: mcp.url, match_preset: false });
  return { id: body.id, mcpUrl: body.mcp_url };
}

async function callTool(mcpUrl: string): Promise<string> {
  const client = new Client({ name: 'client-credentials-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  await client.close();
  return JSON.stringify(result.content);
}

const invalidBodies: [string, Record<string, unknown>, string][] = [
  ['a grant without client_id', { grant: 'client_credentials', client_secret: 'x' }, 'client_id'],
  ['both a secret and a key', { grant: 'client_credentials', client_id: 'a', client_secret: 'x', private_key_pem: 'k' }, 'private_key_pem'],
  ['neither a secret nor a key', { grant: 'client_credentials', client_id: 'a' }, 'client_secret'],
  ['an unknown grant', { grant: 'password', client_id: 'a', client_secret: 'x' }, 'grant'],
  ['client credentials without a grant', { client_id: 'a', client_secret: 'x' }, 'client_id'],
  ['a grant with an access token', { grant: 'client_credentials', client_id: 'a', client_secret: 'x', access_token: 't' }, 'access_token'],
  ['a key that is not a PEM private key', { grant: 'client_credentials', client_id: 'a', private_key_pem: 'not a key' }, 'private_key_pem'],
  ['an RSA key for ES256', { grant: 'client_credentials', client_id: 'a', private_key_pem: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), signing_algorithm: 'ES256' }, 'private_key_pem'],
  ['an unknown signing algorithm', { grant: 'client_credentials', client_id: 'a', private_key_pem: 'k', signing_algorithm: 'HS256' }, 'signing_algorithm'],
];

for (const [what, body, field] of invalidBodies) {
  test(`connect refuses ${what} with 422 problem details naming ${field}`, async (t) => {
    const { id } = await created();
    const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, body);
    t.is(res.status, 422, res.text);
    t.regex(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    t.true((res.body.errors as { path: string }[]).some((e) => e.path === field), res.text);
    t.is((await stack.api('GET', `/api/v1/connectors/${id}`)).body.state, 'created');
  });
}

test.serial('client_secret_basic: connected at once, usable, renewed before expiry and after a 401, never shown', async (t) => {
  const { id, mcpUrl } = await created();
  const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, { grant: 'client_credentials', client_id: 'cc-basic', client_secret: SECRET });
  t.is(res.status, 200, res.text);
  t.is(res.body.state, 'connected');
  t.is(res.body.auth_kind, 'client_credentials');
  t.false(res.text.includes(SECRET));
  t.regex(await callTool(mcpUrl), /mcp:read/);

  // Requested again on the refresh timer (a third of the lifetime before expiry): no refresh token involved.
  const handle = stack.temporal.workflow.getHandle(connectorWorkflowId(id));
  const route = async () => ((await handle.query('route' as never)) as { token: string }).token;
  const first = await route();
  await eventually(async () => ((await route()) !== first ? true : undefined), TOKEN_TTL_S * 3000, 'a token requested again before expiry');
  t.is((await stack.api('GET', `/api/v1/connectors/${id}`)).body.state, 'connected');

  // The server refuses the token in force: the proxy asks for a new one, and the call goes through.
  const refused = mcp.seenTokens[mcp.seenTokens.length - 1]!;
  mcp.refuseToken(refused);
  t.regex(await eventually(async () => callTool(mcpUrl).catch(() => undefined), 15_000, 'a call after the 401'), /mcp:read/);
  t.not(mcp.seenTokens[mcp.seenTokens.length - 1], refused);

  const record = await stack.api('GET', `/api/v1/connectors/${id}`);
  t.is(record.body.state, 'connected');
  t.false(record.text.includes(SECRET));
  t.deepEqual(filesContaining(stack.dataDir, SECRET), [], 'the client secret in the data directory, logs included');
  for (const token of mcp.seenTokens) t.deepEqual(filesContaining(stack.dataDir, token.slice(-43)), [], 'an access token');
});

test.serial("a preset's own client credentials: an empty connect obtains the token as the preset's client; the secret is never shown", async (t) => {
  const created = await stack.api('POST', '/api/v1/connectors', { url: mcp.url });
  t.is(created.status, 201, created.text);
  t.like(created.body, { preset: { url: mcp.url } });
  const connect = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, {});
  t.is(connect.status, 200, connect.text);
  t.like(connect.body, { state: 'connected', auth_kind: 'client_credentials' });
  t.regex(await callTool(created.body.mcp_url), /mcp:read/, "the token works through the proxy");
  const presets = await stack.api('GET', '/api/v1/connectors/presets');
  for (const answer of [created, connect, presets]) t.false(answer.text.includes(SECRET), 'the secret in an answer');
  t.deepEqual(filesContaining(stack.dataDir, SECRET), [], 'the client secret in the data directory, logs included');
});

test.serial('private_key_jwt: connected with a signed client assertion; the key is never shown', async (t) => {
  const { id, mcpUrl } = await created();
  const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, {
    grant: 'client_credentials', client_id: 'cc-jwt', private_key_pem: privateKeyPem, signing_algorithm: 'ES256',
  });
  t.is(res.status, 200, res.text);
  t.is(res.body.state, 'connected');
  t.is(res.body.auth_kind, 'client_credentials');
  t.regex(await callTool(mcpUrl), /mcp:read/);
  const keyBody = privateKeyPem.split('\n')[1]!; // one line of the key's base64
  t.false(res.text.includes(keyBody));
  t.deepEqual(filesContaining(stack.dataDir, keyBody), [], 'the private key in the data directory, logs included');
});
