// A stock MCP client signs its user in to a connector's MCP path with nothing registry-specific:
// the MCP SDK's own OAuth support, starting from the proxy's 401 alone, against oidc-provider as
// the platform's identity provider (discovery from resource_metadata, dynamic registration,
// PKCE, `resource` = the connector's mcp_url, a JWT access token for that resource); and
// `mcp-remote` (npm), the stdio bridge desktop clients use, and the MCP Inspector's CLI, each run
// as its own process the way a user runs it, with its loopback callback on 127.0.0.1.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import test, { type ExecutionContext } from 'ava';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ConnectorCommands } from '../../api/connector-commands';
import { sha256Hex } from '../../callers/api-keys';
import { parseKey, SecretBox } from '../../platform/secret-box';
import { createConsentAgent, startOidcServer, type OidcServer } from '../fixtures/oauth';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { freePort } from '../../service/free-port';
import { createLogger } from '../../platform/logger';
import { locateNode24 } from '../../stack/toolchain/node24';

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

/** A client run as its own process, its output gathered; stdin held open (a stdio bridge shuts down when it ends). */
function runClient(t: ExecutionContext, node: string, args: string[], home: string, env: Record<string, string> = {}) {
  // BROWSER=true: the "browser" a client opens is a no-op; the test plays the user from the printed URL.
  const child = spawn(node, args, { env: { PATH: process.env.PATH, HOME: home, MCP_REMOTE_CONFIG_DIR: home, BROWSER: 'true', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.teardown(() => { child.kill('SIGKILL'); });
  /** The first match of `pattern` in the output, waited for; a timeout shows what the client said. */
  const printed = (pattern: RegExp, what: string) => eventually(async () => pattern.exec(output)?.[1], 60_000, what)
    .catch((err: Error) => { throw new Error(`${err.message}; the client said:\n${output}`); });
  return { output: () => output, exited, printed };
}

/** Checks the authorization URL a client printed, plays alice through the identity provider, and lands on the client's callback. */
async function signInFromPrinted(t: ExecutionContext, printed: string, mcpUrl: string): Promise<void> {
  const authorizationUrl = new URL(printed);
  t.true(authorizationUrl.href.startsWith(idp.issuer), 'it found the identity provider from the challenge');
  t.is(authorizationUrl.searchParams.get('resource'), mcpUrl, 'the token is asked for the connector\'s mcp_url (RFC 8707)');
  // The scope the challenge and the protected-resource document name (and offline_access, which
  // a client may add for an OpenID issuer that lists it: SEP-2207).
  t.true(authorizationUrl.searchParams.get('scope')!.split(' ').includes('openid'), authorizationUrl.searchParams.get('scope')!);
  const redirectUri = authorizationUrl.searchParams.get('redirect_uri')!;
  t.is(new URL(redirectUri).hostname, '127.0.0.1');
  const callback = await createConsentAgent().authorize(authorizationUrl.href, { redirectUri, login: 'alice' });
  t.is(callback.searchParams.get('error'), null, callback.search);
  const landed = await fetch(callback);
  await landed.body?.cancel();
  t.is(landed.status, 200, 'the client took the code');
}

const homeDir = (t: ExecutionContext) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-client-home-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
};

test('mcp-remote signs its user in from the 401 alone, with its loopback callback, and lists the tools through the proxy', async (t) => {
  const { mcpUrl } = await aliceConnector();
  const bin = createRequire(import.meta.url).resolve('mcp-remote/dist/client.js');
  const client = runClient(t, process.execPath, [bin, mcpUrl, String(await freePort()), '--host', '127.0.0.1'], homeDir(t));
  const printed = await client.printed(/Please authorize this client by visiting:\s+(\S+)/, 'the authorization URL printed by mcp-remote');
  await signInFromPrinted(t, printed, mcpUrl);
  t.is(await client.exited, 0, client.output());
  t.regex(client.output(), /Connected successfully!/);
  t.regex(client.output(), /"name": "echo"/, 'the tools listed through the connector\'s MCP path');
  t.false(upstream.seenAuthorization.some((seen) => seen !== undefined && seen !== `Bearer ${UPSTREAM_TOKEN}`), "no token but the connector's own reached the MCP server");
});

test('the MCP Inspector CLI signs its user in from the 401 alone and lists the tools through the proxy', async (t) => {
  const { mcpUrl } = await aliceConnector();
  // The Inspector needs Node >= 22.19: it runs on the Node 24 that npm test puts in the toolchain cache.
  const node = await locateNode24({ log: createLogger('inspector-test', 'warn') });
  const bin = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url));
  const callbackUrl = `http://127.0.0.1:${await freePort()}/oauth/callback`;
  const client = runClient(t, node.path, [bin, '--cli', mcpUrl, '--method', 'tools/list', '--callback-url', callbackUrl], homeDir(t), {
    // Without a terminal the CLI signs in only when told it may hand the user a URL.
    MCP_AUTO_OPEN_ENABLED: 'true',
  });
  const printed = await client.printed(/Please navigate to:\s+(\S+)/, 'the authorization URL printed by the Inspector');
  await signInFromPrinted(t, printed, mcpUrl);
  t.is(await client.exited, 0, client.output());
  t.regex(client.output(), /"name": "echo"/, 'the tools listed through the connector\'s MCP path');
});
