// DPoP-bound upstream tokens (SEP-1932, RFC 9449) against a real authorization server
// (oidc-provider, which advertises DPoP and binds the tokens asked for with a proof) and an MCP
// server that checks a proof on every request and asks for its nonce first: a client credentials
// connect gets a token bound to the connector's own key (cnf.jkt), the probe and the proxy present
// it with proofs (the nonce asked for and given), the token renewed before expiry is bound too,
// and the key is in no answer and nowhere in the data directory (Temporal's history, MongoDB, the
// logs) in plaintext — only sealed, in the workflow's state.
import crypto from 'node:crypto';
import test from 'ava';
import { calculateJwkThumbprint, decodeJwt, type JWK } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SecretBox, secretContext } from '../../platform/secret-box';
import { DPOP_KEY_PURPOSE } from '../../contract/dpop-key';
import { connectorWorkflowId } from '../../workflows/messages';
import { startOidcServer, startProtectedMcpServer, type OidcServer, type ProtectedMcpServer } from '../fixtures/oauth';
import { eventually, filesContaining, startTestStack, type TestStack } from '../helpers/test-stack';

const SECRET = `dpop-secret-${crypto.randomUUID()}`;
const ENCRYPTION_KEY = crypto.randomBytes(32);
const TOKEN_TTL_S = 6;

let stack: TestStack;
let as: OidcServer;
let mcp: ProtectedMcpServer;

test.before(async () => {
  as = await startOidcServer({
    accessTokenTtl: TOKEN_TTL_S, clientCredentials: true, dpop: true,
    staticClients: [{ clientId: 'dpop-client', clientSecret: SECRET, authMethod: 'client_secret_basic', redirectUris: [], grantTypes: ['client_credentials'] }],
  });
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, scopesSupported: ['mcp:read'], dpop: { nonce: 'rs-nonce-1' } });
  stack = await startTestStack({ CONNECTOR__ENCRYPTION_KEY: ENCRYPTION_KEY.toString('hex') });
});

test.after.always(async () => {
  await stack?.stop();
  await mcp?.close();
  await as?.close();
});

async function callTool(mcpUrl: string): Promise<string> {
  const client = new Client({ name: 'dpop-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  await client.close();
  return JSON.stringify(result.content);
}

test.serial('client credentials at a DPoP server: a token bound to the connector\'s own key, presented with proofs, renewed bound, the key never in plaintext', async (t) => {
  const { body: created } = await stack.api('POST', '/api/v1/connectors', { url: mcp.url, match_preset: false });
  const res = await stack.api('POST', `/api/v1/connectors/${created.id}/connect`, { grant: 'client_credentials', client_id: 'dpop-client', client_secret: SECRET });
  t.is(res.status, 200, res.text);
  t.is(res.body.state, 'connected');
  t.is(res.body.token_binding, 'dpop');
  t.is(res.body.auth_kind, 'client_credentials');
  t.true(mcp.dpop!.nonceRefusals >= 1, 'the probe was asked for the nonce');
  const probed = mcp.dpop!.accepted;
  t.true(probed >= 1, 'the probe presented the token with proofs');

  t.regex(await callTool(created.mcp_url), /mcp:read/);
  t.true(mcp.dpop!.accepted > probed, 'the proxy presented the token with proofs');

  // The key the token is bound to: sealed in the workflow's route, and the one the proofs name.
  const handle = stack.temporal.workflow.getHandle(connectorWorkflowId(created.id));
  const route = async () => (await handle.query('route' as never)) as { token: string; dpopKey: string };
  const sealed = (await route()).dpopKey;
  t.truthy(sealed);
  const jwk = JSON.parse(new SecretBox(ENCRYPTION_KEY).open(sealed, secretContext(created.id, DPOP_KEY_PURPOSE))) as JWK;
  const { d: _d, ...publicJwk } = jwk;
  const thumbprint = await calculateJwkThumbprint(publicJwk as JWK, 'sha256');
  for (const token of mcp.seenTokens) t.is((decodeJwt(token).cnf as { jkt?: string }).jkt, thumbprint);

  // Requested again before expiry: bound to the same key, and usable through the proxy.
  const first = (await route()).token;
  await eventually(async () => ((await route()).token !== first ? true : undefined), TOKEN_TTL_S * 3000, 'a token requested again before expiry');
  const seenBefore = mcp.seenTokens.length;
  t.regex(await eventually(async () => callTool(created.mcp_url).catch(() => undefined), 15_000, 'a call with the renewed token'), /mcp:read/);
  const renewed = mcp.seenTokens.slice(seenBefore);
  t.true(renewed.length > 0);
  for (const token of renewed) t.is((decodeJwt(token).cnf as { jkt?: string }).jkt, thumbprint);

  const events = await stack.api('GET', `/api/v1/connectors/${created.id}/events`);
  t.true(events.body.items.some((e: { reason: string | null }) => /DPoP-bound/.test(e.reason ?? '')), 'the audit says the token is bound');
  const record = await stack.api('GET', `/api/v1/connectors/${created.id}`);
  t.is(record.body.token_binding, 'dpop');
  for (const text of [res.text, record.text]) t.false(text.includes(jwk.d!));
  t.deepEqual(filesContaining(stack.dataDir, jwk.d!), [], 'the private key in the data directory (history, MongoDB, logs)');
  t.deepEqual(filesContaining(stack.dataDir, SECRET), [], 'the client secret');
});
