// The OAuth side of the scale run: oidc-provider with short-lived access tokens and rotating
// refresh tokens and an MCP server that accepts its tokens, in a process of their own
// (oauth-world-server.ts), and the walk a user makes to connect a connector (the service's consent
// page, the provider's login and consent, the callback).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createConsentAgent, deliverCallback, openConsentPage, type ApiCall } from '../../test/helpers/for-bench';

export interface OAuthWorld {
  /** The MCP server's URL: it takes the authorization server's tokens. */
  mcpUrl: string;
  /**
   * Each connector's first token lives until `at` and then a share of `spreadS` (spread evenly):
   * given the renewal period, the first refreshes come at the later ones' rate and phases.
   */
  holdFirstTokensUntil(at: number, spreadS: number): void;
  /** The token requests the authorization server refused so far, by its own reason (oidc-provider's error_detail). */
  refusals(): Record<string, number>;
  close(): Promise<void>;
}

/** What the world's process tells (oauth-world-server.ts), and what it is told. */
export type WorldMessage = { mcpUrl: string } | { refused: string };
export interface WorldOrder { holdFirstTokensUntil: number; spreadS: number }

/** Starts the world in its own process (oauth-world-server.ts): `accessTokenTtl` in seconds. */
export function startOAuthWorld(accessTokenTtl: number): Promise<OAuthWorld> {
  const file = fileURLToPath(new URL('./oauth-world-server.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    env: { ...process.env, BENCH_WORLD_TTL_S: String(accessTokenTtl) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // The service sees only invalid_grant; the reason behind it is the server's, and a run that
  // refuses refreshes says which one as it happens (the first time each reason appears).
  const refused: Record<string, number> = {};
  const close = () => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.disconnect();
  });
  return new Promise((resolve, reject) => {
    child.on('message', (message: WorldMessage) => {
      if ('mcpUrl' in message) {
        resolve({
          mcpUrl: message.mcpUrl, refusals: () => ({ ...refused }), close,
          holdFirstTokensUntil: (at, spreadS) => child.send({ holdFirstTokensUntil: at, spreadS } satisfies WorldOrder),
        });
        return;
      }
      if (!refused[message.refused]) console.error(`the authorization server refused a token request: ${message.refused}`);
      refused[message.refused] = (refused[message.refused] ?? 0) + 1;
    });
    child.once('exit', (code) => reject(new Error(`the OAuth world's process exited with ${code}`)));
  });
}

/** Creates an OAuth connector and walks its authorization: resolves once it is connected. */
export async function connectOAuth(api: ApiCall, port: number, world: OAuthWorld, headers: Record<string, string>, baseUrl: string): Promise<string> {
  const created = await api('POST', '/api/v1/connectors', { url: world.mcpUrl }, headers);
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text.slice(0, 200)}`);
  const id = created.body.id as string;
  const started = await api('POST', `/api/v1/connectors/${id}/connect`, {}, headers);
  if (started.body?.state !== 'auth_required') throw new Error(`connect answered ${started.status}: ${started.text.slice(0, 200)}`);
  const consent = await openConsentPage(port, started.body.auth_request.authorization_endpoint);
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.href, { redirectUri: `${baseUrl}/api/v1/connectors/oauth/callback`, decision: 'approve' });
  const delivered = await deliverCallback(port, callback, consent.cookie);
  if (delivered.status >= 400) throw new Error(`the callback answered ${delivered.status}: ${pageText(delivered.text)}`);
  const record = await api('GET', `/api/v1/connectors/${id}`, undefined, headers);
  if (record.body?.state !== 'connected') throw new Error(`after the callback: ${record.body?.state} (${record.body?.disconnect_reason})`);
  return id;
}

/** The callback page's words, for a failure's message (what the user was told). */
function pageText(html: string): string {
  return html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200);
}
