// What the test authorization server saw, read from oidc-provider's own events: how each client
// authenticated at the token endpoint, and which refresh tokens each client holds. The service
// keeps its secrets sealed; the server side is where a test can see what it really did.
import type { OidcServer } from '../fixtures/oauth/oidc-server';

export type SeenAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

export interface TokenRequestSeen {
  clientId: string;
  grantType: string;
  /** How the client authenticated in this request, from the request itself. */
  authMethod: SeenAuthMethod;
  resource: string | null;
}

export interface AuthorizationServerObserver {
  /** Successful token requests (code and refresh grants) of one client, in order. */
  tokenRequests(clientId: string): TokenRequestSeen[];
  /** Refresh tokens issued to one client, in order: the last one is the current one. */
  refreshTokensOf(clientId: string): string[];
}

export function observeAuthorizationServer(as: OidcServer): AuthorizationServerObserver {
  const requests: TokenRequestSeen[] = [];
  const refreshTokens: { value: string; clientId: string }[] = [];
  as.provider.on('grant.success', (ctx) => {
    const body = ((ctx.oidc as unknown as { body?: Record<string, unknown> }).body ?? {});
    const authorization = String(ctx.headers.authorization ?? '');
    const authMethod: SeenAuthMethod = /^basic /i.test(authorization) ? 'client_secret_basic'
      : typeof body.client_secret === 'string' ? 'client_secret_post' : 'none';
    requests.push({
      clientId: ctx.oidc.client?.clientId ?? '',
      grantType: String(body.grant_type ?? ''),
      authMethod,
      resource: typeof body.resource === 'string' ? body.resource : null,
    });
  });
  as.provider.on('refresh_token.saved', (token: { jti: string; clientId?: string }) => {
    refreshTokens.push({ value: token.jti, clientId: token.clientId ?? '' });
  });
  return {
    tokenRequests: (clientId) => requests.filter((r) => r.clientId === clientId),
    refreshTokensOf: (clientId) => refreshTokens.filter((t) => t.clientId === clientId).map((t) => t.value),
  };
}

/**
 * Tries a refresh token at the token endpoint as the public client it was issued to, and
 * answers what the server said. Only for tokens expected to be dead: a live one would be rotated.
 */
export async function tryRefreshToken(as: OidcServer, refreshToken: string, clientId: string): Promise<{ status: number; error: string | null }> {
  const res = await fetch(`${as.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }).toString(),
  });
  const body = (await res.json().catch(() => ({}))) as { error?: string };
  return { status: res.status, error: body.error ?? null };
}
