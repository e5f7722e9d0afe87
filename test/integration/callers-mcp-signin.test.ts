// A stock MCP client signs its user in to a connector's MCP path with nothing registry-specific:
// the MCP SDK's own OAuth support, starting from the proxy's 401 alone, against oidc-provider as
// the platform's identity provider (discovery from resource_metadata, dynamic registration,
// PKCE, `resource` = the connector's mcp_url, a JWT access token for that resource); and
// `mcp-remote` (npm), the stdio bridge desktop clients use, run as its own process the way a user
// runs it, with its loopback callback on 127.0.0.1.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ConnectorCommands } from '../../api/connector-commands';
import { sha256Hex } from '../../callers/api-keys';
import { parseKey, SecretBox } from '../../core/secret-box';
import { createConsentAgent, startOidcServer, type OidcServer } from '../fixtures/oauth';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { freePort } from '../../service/free-port';

const UPSTREAM_TOKEN = 'upstream-token-signin-2b7e';
const ALICE_KEY = 'alice-key-signin-4d3c2b1a';
const OPS_KEY = 'ops-key-signin-8e9f0a1b';
const ENCRYPTION_KEY = crypto.randomBytes(32).toString('hex');
const REDIRECT_URI = 'http://127.0.0.1:9/client-callback'; // never contacted: the consent agent stops at it

let idp: OidcServer;
let upstream: TokenMcpServer;
let stack: TestStack;

test.before(async () => {
  idp = await startOidcServer({ accessTokenTtl: 300 });
  upstream = await startTokenMcpServer({ token: UPSTREAM_TOKEN });
  stack = await startTestStack({
    CONNECTOR__AUTH_ISSUER: idp.issuer,
    // A key named like the identity provider's user alice: another owner (key:alice, not oidc:alice).
    CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'alice', sha256: sha256Hex(ALICE_KEY) }, { subject: 'ops', sha256: sha256Hex(OPS_KEY), admin: true }]),
    CONNECTOR__ENCRYPTION_KEY: ENCRYPTION_KEY,
    // Authentication on blocks private networks; the issuer and the MCP server here are on loopback.
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
  });
});
test.after.always(async () => {
  await stack?.stop();
  await upstream?.close();
  await idp?.close();
});

/** The OAuth state a desktop MCP client keeps, in memory. */
class MemoryClientProvider implements OAuthClientProvider {
  authorizationUrl: URL | null = null;
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';
  get redirectUrl() { return REDIRECT_URI; }
  get clientMetadata(): OAuthClientMetadata {
    // The scope the platform's identity provider grants for MCP resources (openid here: oidc-provider grants nothing without a scope).
    return { client_name: 'stock MCP client', scope: 'openid', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() { return this.info; }
  saveClientInformation(info: OAuthClientInformationMixed) { this.info = info; }
  tokens() { return this.saved; }
  saveTokens(tokens: OAuthTokens) { this.saved = tokens; }
  redirectToAuthorization(url: URL) { this.authorizationUrl = url; }
  saveCodeVerifier(verifier: string) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
}

/**
 * A connector the identity provider's alice owns, made the way the API makes one for her (her REST
 * token would need a sign-in of its own), connected with the admin key; its MCP URL.
 */
async function aliceConnector(): Promise<{ id: string; mcpUrl: string }> {
  const commands = new ConnectorCommands({
    temporal: stack.temporal,
    taskQueue: stack.config.temporal.taskQueue,
    secrets: new SecretBox(parseKey(ENCRYPTION_KEY)),
    settings: {
      historyLimit: stack.config.historyLimit, authTimeoutSeconds: stack.config.authTimeoutSeconds, connectTimeoutMs: stack.config.connectTimeoutMs,
      stdioReadyTimeoutMs: stack.config.stdio.readyTimeoutMs, refreshSkewSeconds: stack.config.refreshSkewSeconds,
    },
  });
  const { id } = await commands.create({ url: upstream.url, createdBy: 'oidc:alice', createdByName: 'alice' });
  const connected = await stack.api('POST', `/api/v1/connectors/${id}/connect`, { access_token: UPSTREAM_TOKEN }, { authorization: `Bearer ${OPS_KEY}` });
  if (connected.status !== 200) throw new Error(`connect answered ${connected.status}: ${connected.text}`);
  return { id, mcpUrl: `${stack.baseUrl}/api/v1/connectors/${id}/mcp` };
}

test('an MCP SDK client signs its user in from the 401 alone and lists the tools through the proxy', async (t) => {
  const { id, mcpUrl } = await aliceConnector();
  const asKey = await stack.api('GET', `/api/v1/connectors/${id}`, undefined, { authorization: `Bearer ${ALICE_KEY}` });
  t.is(asKey.status, 404, 'the key named alice is not the identity provider\'s alice');

  const provider = new MemoryClientProvider();
  const first = new Client({ name: 'stock-client', version: '1.0.0' });
  const error = await t.throwsAsync(first.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider })));
  t.true(error instanceof UnauthorizedError, `the client was sent to sign in (${error?.message})`);
  const authorizationUrl = provider.authorizationUrl!;
  t.truthy(authorizationUrl, 'the client found the identity provider from the challenge');
  t.true(authorizationUrl.href.startsWith(idp.issuer));
  t.is(authorizationUrl.searchParams.get('resource'), mcpUrl, 'the token is asked for the connector\'s mcp_url (RFC 8707)');
  t.is(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
  t.truthy(provider.clientInformation()?.client_id, 'the client registered itself (RFC 7591)');

  // The user signs in as alice, the connector's owner, and approves.
  const callback = await createConsentAgent().authorize(authorizationUrl.href, { redirectUri: REDIRECT_URI, login: 'alice' });
  t.is(callback.searchParams.get('error'), null, callback.search + ' for ' + authorizationUrl.search);
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
  await transport.finishAuth(callback.searchParams.get('code')!);
  const client = new Client({ name: 'stock-client', version: '1.0.0' });
  await client.connect(transport);
  const tools = await client.listTools();
  t.deepEqual(tools.tools.map((tool) => tool.name), ['echo']);
  await client.close();
  t.false(upstream.seenAuthorization.includes(`Bearer ${provider.tokens()!.access_token}`), "the user's token never reaches the MCP server");

  // Signed in as someone else, the same client sees no such connector.
  const mallory = new MemoryClientProvider();
  const probe = new Client({ name: 'stock-client', version: '1.0.0' });
  await t.throwsAsync(probe.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: mallory })));
  const malloryCallback = await createConsentAgent().authorize(mallory.authorizationUrl!.href, { redirectUri: REDIRECT_URI, login: 'mallory' });
  const malloryTransport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: mallory });
  await malloryTransport.finishAuth(malloryCallback.searchParams.get('code')!);
  const refused = await t.throwsAsync(new Client({ name: 'stock-client', version: '1.0.0' }).connect(malloryTransport));
  t.regex(refused!.message, /404/);
});

test('mcp-remote signs its user in from the 401 alone, with its loopback callback, and lists the tools through the proxy', async (t) => {
  const { mcpUrl } = await aliceConnector();
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-remote-'));
  t.teardown(() => fs.rmSync(configDir, { recursive: true, force: true }));
  const callbackPort = await freePort();
  const bin = createRequire(import.meta.url).resolve('mcp-remote/dist/client.js');
  // BROWSER=true: the "browser" it opens is a no-op; the test plays the user from the printed URL.
  const child = spawn(process.execPath, [bin, mcpUrl, String(callbackPort), '--host', '127.0.0.1'], {
    env: { PATH: process.env.PATH, HOME: configDir, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: 'true' },
    // stdin held open: mcp-remote shuts down when it ends, as a stdio server does.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.teardown(() => { child.kill('SIGKILL'); });

  const printed = await eventually(async () => /Please authorize this client by visiting:\s+(\S+)/.exec(output)?.[1], 60_000, 'the authorization URL printed by mcp-remote');
  const authorizationUrl = new URL(printed);
  t.true(authorizationUrl.href.startsWith(idp.issuer), 'it found the identity provider from the challenge');
  t.is(authorizationUrl.searchParams.get('resource'), mcpUrl, 'the token is asked for the connector\'s mcp_url (RFC 8707)');
  // The scope the challenge and the protected-resource document name (and offline_access, which
  // mcp-remote adds for an OpenID issuer that lists it: SEP-2207).
  t.true(authorizationUrl.searchParams.get('scope')!.split(' ').includes('openid'), authorizationUrl.searchParams.get('scope')!);
  const redirectUri = authorizationUrl.searchParams.get('redirect_uri')!;
  t.is(new URL(redirectUri).hostname, '127.0.0.1');

  // The user signs in as alice and approves; the browser then lands on mcp-remote's own callback.
  const callback = await createConsentAgent().authorize(authorizationUrl.href, { redirectUri, login: 'alice' });
  t.is(callback.searchParams.get('error'), null, callback.search);
  const landed = await fetch(callback);
  await landed.body?.cancel();
  t.is(landed.status, 200, 'mcp-remote took the code');

  t.is(await exited, 0, output);
  t.regex(output, /Connected successfully!/);
  t.regex(output, /"name": "echo"/, 'the tools listed through the connector\'s MCP path');
  t.false(upstream.seenAuthorization.some((seen) => seen !== undefined && seen !== `Bearer ${UPSTREAM_TOKEN}`), "no token but the connector's own reached the MCP server");
});
