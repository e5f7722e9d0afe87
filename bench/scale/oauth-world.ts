// The OAuth side of the scale run: oidc-provider with short-lived access tokens and rotating
// refresh tokens, an MCP server that accepts its tokens, and the walk a user makes to connect a
// connector (the service's consent page, the provider's login and consent, the callback).
import {
  createConsentAgent, deliverCallback, openConsentPage, startOidcServer, startProtectedMcpServer,
  type ApiCall, type OidcServer, type ProtectedMcpServer,
} from '../../test/helpers/for-bench';

export interface OAuthWorld {
  as: OidcServer;
  mcp: ProtectedMcpServer;
  /** The token requests the authorization server refused so far, by its own reason (oidc-provider's error_detail). */
  refusals(): Record<string, number>;
  close(): Promise<void>;
}

/** `firstAccessTokenTtl`: the lifetime of each connector's first token, asked as it is issued (default `accessTokenTtl`). */
export async function startOAuthWorld(accessTokenTtl: number, firstAccessTokenTtl?: () => number): Promise<OAuthWorld> {
  const as = await startOidcServer({ accessTokenTtl, firstAccessTokenTtl, rotateRefreshTokens: true, unboundedStorage: true });
  const mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri });
  // The service sees only invalid_grant; the reason behind it is the server's, and a run that
  // refuses refreshes says which one as it happens (the first time each reason appears).
  const refused: Record<string, number> = {};
  as.provider.on('grant.error', (_ctx: unknown, err: { error?: string; error_detail?: string }) => {
    const reason = `${err.error ?? 'error'}: ${err.error_detail ?? 'no detail'}`;
    if (!refused[reason]) console.error(`the authorization server refused a token request: ${reason}`);
    refused[reason] = (refused[reason] ?? 0) + 1;
  });
  return { as, mcp, refusals: () => ({ ...refused }), async close() { await mcp.close(); await as.close(); } };
}

/** Creates an OAuth connector and walks its authorization: resolves once it is connected. */
export async function connectOAuth(api: ApiCall, port: number, world: OAuthWorld, headers: Record<string, string>, baseUrl: string): Promise<string> {
  const created = await api('POST', '/api/v1/connectors', { url: world.mcp.url }, headers);
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text.slice(0, 200)}`);
  const id = created.body.id as string;
  const started = await api('POST', `/api/v1/connectors/${id}/connect`, {}, headers);
  if (started.body?.state !== 'auth_required') throw new Error(`connect answered ${started.status}: ${started.text.slice(0, 200)}`);
  const consent = await openConsentPage(port, started.body.auth_request.authorization_endpoint);
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.href, { redirectUri: `${baseUrl}/api/v1/connectors/oauth/callback`, decision: 'approve' });
  const delivered = await deliverCallback(port, callback, consent.cookie);
  if (delivered.status >= 400) throw new Error(`the callback answered ${delivered.status}`);
  const record = await api('GET', `/api/v1/connectors/${id}`, undefined, headers);
  if (record.body?.state !== 'connected') throw new Error(`after the callback: ${record.body?.state} (${record.body?.disconnect_reason})`);
  return id;
}
