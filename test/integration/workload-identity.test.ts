// Workload identity (SEP-1933) against a real authorization server (oidc-provider taking workload
// tokens of a trusted issuer with the JWT bearer grant, jwt-bearer-grant.ts) and an MCP server that
// verifies its JWTs. The service's workload token lives in a file, as a Kubernetes projected
// service-account token does: the test rewrites it as the kubelet would. Shown: the connect body's
// rules; an admin's connect and a preset's empty connect; the file read anew by the token requests
// after a rotation (the renewal timer, and the proxy's 401 path); an expired token refused
// without being sent; auth_kind in the record and the audit; the workload token and the access
// tokens in no answer, log or file of the data directory.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectorWorkflowId } from '../../workflows/messages';
import { JWT_BEARER_GRANT, startOidcServer, startProtectedMcpServer, type OidcServer, type ProtectedMcpServer } from '../fixtures/oauth';
import { historyPayloads } from '../helpers/history-values';
import { eventually, filesContaining, startTestStack, type TestStack } from '../helpers/test-stack';

const WORKLOAD_ISSUER = 'https://kubernetes.default.svc.cluster.local';
const TOKEN_TTL_S = 6;

let stack: TestStack;
let as: OidcServer;
let mcp: ProtectedMcpServer;
let presetMcp: ProtectedMcpServer;
let signingKey: CryptoKey;
let dir: string;
let tokenFile: string;
const presented: string[] = [];

test.before(async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  signingKey = privateKey;
  as = await startOidcServer({
    accessTokenTtl: TOKEN_TTL_S,
    jwtBearer: { issuer: WORKLOAD_ISSUER, publicJwk: await exportJWK(publicKey), workload: { seen: (assertion) => presented.push(assertion) } },
    staticClients: [{ clientId: 'wif-svc', authMethod: 'none', redirectUris: [], grantTypes: [JWT_BEARER_GRANT] }],
  });
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, scopesSupported: ['mcp:read'] });
  presetMcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, scopesSupported: ['mcp:read'] });
  dir = await mkdtemp(join(tmpdir(), 'wif-'));
  tokenFile = join(dir, 'token');
  await writeFile(tokenFile, await workloadToken(3600));
  stack = await startTestStack({
    CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE: tokenFile,
    CONNECTOR__PRESETS: JSON.stringify([{ url: presetMcp.url, metadata: { name: 'Workload' }, workload_identity: { client_id: 'wif-svc' } }]),
  });
});

test.after.always(async () => {
  await stack?.stop();
  await mcp?.close();
  await presetMcp?.close();
  await as?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A service-account token as the kubelet projects it: audience the authorization server. */
function workloadToken(expiresInSeconds: number): Promise<string> {
  return new SignJWT({ kubernetes: { namespace: 'mcp', serviceaccount: 'connector-registry' } })
    .setProtectedHeader({ alg: 'ES256' }).setIssuer(WORKLOAD_ISSUER).setSubject('system:serviceaccount:mcp:connector-registry')
    .setAudience(as.issuer).setJti(crypto.randomUUID()).setIssuedAt().setExpirationTime(Math.floor(Date.now() / 1000) + expiresInSeconds)
    .sign(signingKey);
}

async function created(url = mcp.url, matchPreset = false): Promise<{ id: string; mcpUrl: string }> {
  const { body } = await stack.api('POST', '/api/v1/connectors', { url, match_preset: matchPreset });
  return { id: body.id, mcpUrl: body.mcp_url };
}

async function callTool(mcpUrl: string): Promise<string> {
  const client = new Client({ name: 'workload-identity-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  await client.close();
  return JSON.stringify(result.content);
}

const invalidBodies: [string, Record<string, unknown>, string][] = [
  ['no client_id', { grant: 'workload_identity' }, 'client_id'],
  ['a client secret beside the workload token', { grant: 'workload_identity', client_id: 'a', client_secret: 'x' }, 'client_secret'],
  ['a private key beside the workload token', { grant: 'workload_identity', client_id: 'a', private_key_pem: 'k' }, 'private_key_pem'],
  ['an id_token beside the workload token', { grant: 'workload_identity', client_id: 'a', id_token: 'x.y.z' }, 'id_token'],
  ['an access token beside the grant', { grant: 'workload_identity', client_id: 'a', access_token: 't' }, 'access_token'],
];

for (const [what, body, field] of invalidBodies) {
  test(`connect refuses ${what} with 422 problem details naming ${field}`, async (t) => {
    const { id } = await created('http://127.0.0.1:9/mcp');
    const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, body);
    t.is(res.status, 422, res.text);
    t.true((res.body.errors as { path: string }[]).some((e) => e.path === field), res.text);
    t.is((await stack.api('GET', `/api/v1/connectors/${id}`)).body.state, 'created');
  });
}

test.serial('connected with the workload token, renewed with the token the file holds then (timer and 401), never shown', async (t) => {
  const first = await workloadToken(3600);
  await writeFile(tokenFile, first);
  const { id, mcpUrl } = await created();
  const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, { grant: 'workload_identity', client_id: 'wif-svc' });
  t.is(res.status, 200, res.text);
  t.is(res.body.state, 'connected');
  t.is(res.body.auth_kind, 'workload_identity');
  t.is(presented[presented.length - 1], first, 'the token the file held');
  t.regex(await callTool(mcpUrl), /mcp:read/);
  const events = (await stack.api('GET', `/api/v1/connectors/${id}/events`)).body.items as { to: string; auth_kind?: string }[];
  t.is(events.find((e) => e.to === 'connected')?.auth_kind, 'workload_identity', 'the audit names the kind');

  // The kubelet rotates the token: the renewal before expiry reads the file again.
  const rotated = await workloadToken(3600);
  await writeFile(tokenFile, rotated);
  await eventually(async () => (presented.includes(rotated) ? true : undefined), TOKEN_TTL_S * 5000, 'the rotated token presented');

  // And once more, this time on the proxy's 401 path.
  const again = await workloadToken(3600);
  await writeFile(tokenFile, again);
  const refused = mcp.seenTokens[mcp.seenTokens.length - 1]!;
  mcp.refuseToken(refused);
  t.regex(await eventually(async () => callTool(mcpUrl).catch(() => undefined), 20_000, 'a call after the 401'), /mcp:read/);
  await eventually(async () => (presented.includes(again) ? true : undefined), TOKEN_TTL_S * 5000, 'the token the file holds now presented');
  // A request that read the file just before a rotation may present the older token; none after it.
  t.false(presented.slice(presented.indexOf(rotated)).includes(first), 'the first token presented after the rotation');
  t.false(presented.slice(presented.indexOf(again)).includes(rotated), 'the second token presented after the next rotation');

  const record = await stack.api('GET', `/api/v1/connectors/${id}`);
  t.is(record.body.state, 'connected');
  const history = JSON.stringify(await historyPayloads(stack.temporal, connectorWorkflowId(id)));
  t.true(history.includes('"wif-svc"'), 'the history was read: the grant is there, by its client id');
  for (const token of [first, rotated, again]) {
    const signature = token.split('.')[2]!;
    t.false(record.text.includes(signature));
    t.false(history.includes(signature), 'a workload token in the workflow history');
    t.deepEqual(filesContaining(stack.dataDir, signature), [], 'a workload token in the data directory, logs and database included');
  }
  for (const token of mcp.seenTokens) t.deepEqual(filesContaining(stack.dataDir, token.slice(-43)), [], 'an access token');
});

test.serial("a preset that asks for workload identity: an empty connect uses it, as the preset's client", async (t) => {
  await writeFile(tokenFile, await workloadToken(3600));
  const { id, mcpUrl } = await created(presetMcp.url, true);
  const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, {});
  t.is(res.status, 200, res.text);
  t.is(res.body.state, 'connected');
  t.is(res.body.auth_kind, 'workload_identity');
  t.is(res.body.auth_request, null, 'no authorization URL');
  t.regex(await callTool(mcpUrl), /mcp:read/);
});

test.serial('an expired token in the file is refused before it is sent, naming the file and not the token', async (t) => {
  const expired = await workloadToken(-60);
  await writeFile(tokenFile, expired);
  const before = presented.length;
  const { id } = await created();
  const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, { grant: 'workload_identity', client_id: 'wif-svc' });
  t.is(res.status, 502, res.text);
  t.regex(res.body.detail ?? '', /expired/);
  const record = (await stack.api('GET', `/api/v1/connectors/${id}`)).body;
  t.is(record.state, 'disconnected');
  t.regex(record.disconnect_reason ?? '', /expired/);
  t.true((record.disconnect_reason as string).includes(tokenFile));
  t.is(presented.length, before, 'nothing presented to the authorization server');
  t.false(res.text.includes(expired.split('.')[2]!));
});
