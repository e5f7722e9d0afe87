// The "client under test" the conformance suite runs for its authorization scenarios: the service
// is the OAuth client, so this driver plays its user and its agent. It creates a connector for the
// scenario's MCP server (the last argument) on the stack at 127.0.0.1:CONFORMANCE_STACK_PORT,
// connects it, opens the consent page, follows the authorization server's redirect to the callback,
// then lists the tools and calls `test-tool` through the connector's MCP path (what the SDK's own
// conformance client does once authorized). A scenario with a pre-registered client passes its
// credentials in MCP_CONFORMANCE_CONTEXT; they go into the connector as its client_id/secret.
// The client credentials scenarios (SEP-1046) pass a secret or a private key there instead: the
// driver connects with `grant: client_credentials`, and no consent page is involved. The
// enterprise-managed scenario (SEP-990) passes the user's ID token and the identity provider's
// token endpoint and client besides: the driver connects with `grant: enterprise_managed`.
// The workload identity scenario (SEP-1933) mints the workload's JWT (its audience the scenario's
// authorization server) when it starts: the driver writes it into the file the stack was started
// to read (CONFORMANCE_WORKLOAD_TOKEN_FILE, the stack's CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE),
// as a kubelet writes a projected token, and connects with `grant: workload_identity`.
// The agent declares URL-mode elicitation: when the server asks for authorization or more scope
// mid-way, the proxy answers -32042 (or problem details) with the authorization URL, which the
// user follows, and the agent tries again (the service's way of doing what the SDK's own client
// does in-process).
import { writeFile } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { deliverCallback, localMcpUrl, openConsentPage, startFlow } from '../helpers/oauth-service';
import { apiClient } from '../helpers/test-stack';

const port = Number(process.env.CONFORMANCE_STACK_PORT);
const serverUrl = process.argv[process.argv.length - 1]!;
const api = apiClient(`http://127.0.0.1:${port}`);

const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as ConformanceContext;
console.log(`context keys: ${Object.keys(context).join(', ')}`);
if (context.valid_jwt) await writeFile(process.env.CONFORMANCE_WORKLOAD_TOKEN_FILE!, context.valid_jwt);
const { id, res } = serviceGrantScenario(context)
  ? await startFlow(api, { url: serverUrl, match_preset: false }, serviceGrantConnect(context))
  : await startFlow(api, { url: serverUrl, match_preset: false, ...givenClient(context) });
if (res.body?.state === 'auth_required') await authorize(res.body.auth_request.authorization_endpoint);
else console.log(`connect answered ${res.status}: ${res.body?.state ?? res.text}`);

const client = await connectClient(new URL(localMcpUrl(port, id)));
await withAuthorization(() => client.listTools());
await withAuthorization(() => client.callTool({ name: 'test-tool', arguments: {} }));
await client.close();
// The suite waits for this process to end, and keep-alive sockets would hold it for its timeout.
process.exit(0);

/** What a scenario hands the client: its name, and the credentials of a pre-registered client. */
interface ConformanceContext {
  name?: string;
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
  idp_client_id?: string;
  idp_id_token?: string;
  idp_token_endpoint?: string;
  /** The workload's JWT (workload identity). */
  valid_jwt?: string;
}

/**
 * SEP-1046 scenarios (`--suite extensions`): the client holds its own credentials and no user
 * takes part. A key means private_key_jwt; a secret alone could be a pre-registered client of the
 * authorization-code scenarios too, so the scenario's name tells them apart.
 */
function serviceGrantScenario(c: ConformanceContext): boolean {
  return Boolean(c.client_id && (c.private_key_pem || c.idp_id_token || c.valid_jwt || c.name?.startsWith('auth/client-credentials')));
}

function serviceGrantConnect(c: ConformanceContext): Record<string, unknown> {
  if (c.valid_jwt) return { grant: 'workload_identity', client_id: c.client_id };
  if (c.idp_id_token) {
    return {
      grant: 'enterprise_managed', client_id: c.client_id, client_secret: c.client_secret,
      id_token: c.idp_id_token, idp_token_endpoint: c.idp_token_endpoint, idp_client_id: c.idp_client_id,
    };
  }
  return c.private_key_pem
    ? { grant: 'client_credentials', client_id: c.client_id, private_key_pem: c.private_key_pem, signing_algorithm: c.signing_algorithm ?? 'ES256' }
    : { grant: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret };
}

/** A pre-registered client of the authorization-code scenarios goes into the connector at creation. */
function givenClient(c: ConformanceContext): Record<string, unknown> {
  return c.client_id ? { client_id: c.client_id, client_secret: c.client_secret } : {};
}

interface AgentClient {
  listTools(): Promise<unknown>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * The SDK v1 client (2025-11-25); a server that refuses its initialize (a 2026-07-28-only
 * scenario server) gets the SDK v2 client, which negotiates the newest revision.
 */
async function connectClient(url: URL): Promise<AgentClient> {
  const capabilities = { elicitation: { url: {} } };
  const legacy = new Client({ name: 'conformance-auth-driver', version: '1.0.0' }, { capabilities });
  try {
    await legacy.connect(new StreamableHTTPClientTransport(url));
    return legacy;
  } catch {
    const modern = new ModernClient({ name: 'conformance-auth-driver', version: '2.0.0' }, { capabilities, versionNegotiation: { mode: 'auto' } });
    await modern.connect(new ModernTransport(url));
    return modern;
  }
}

/** Runs `call`; when it meets an authorization (-32042), the user authorizes and the call is tried again. */
async function withAuthorization<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const url = elicitedUrl(err);
    if (!url) throw err;
    await authorize(url);
    // The proxy's route cache may serve the previous token for a moment after the change.
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (again) {
        if (attempt >= 12) throw again;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }
}

/**
 * The authorization URL an error carries: -32042's elicitation, or the `authorization_url` of the
 * problem details the proxy answers to a client whose session it cannot tell declared URL mode
 * (a stateless server gives no session to remember it by); the SDK puts that body in its message.
 */
function elicitedUrl(err: unknown): string | null {
  const e = err as { code?: unknown; message?: unknown; data?: { elicitations?: { mode?: string; url?: string }[] } };
  const elicitation = e.code === -32042 ? e.data?.elicitations?.[0] : undefined;
  if (elicitation?.mode === 'url' && elicitation.url) return elicitation.url;
  const problem = typeof e.message === 'string' ? /"authorization_url":"([^"]+)"/.exec(e.message) : null;
  return problem ? problem[1]! : null;
}

async function authorize(consentEndpoint: string): Promise<void> {
  const consent = await openConsentPage(port, consentEndpoint);
  // The scenario's authorization server approves at once and redirects to the callback.
  const answer = await fetch(consent.authorizationUrl, { redirect: 'manual' });
  const location = answer.headers.get('location');
  if (!location) throw new Error(`the authorization server answered ${answer.status} without a redirect: ${await answer.text()}`);
  const delivered = await deliverCallback(port, new URL(location), consent.cookie);
  console.log(`callback answered ${delivered.status}`);
}
