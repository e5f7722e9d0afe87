// The refresh token grant (RFC 6749 section 6) with the RFC 8707 resource. A rotated refresh
// token replaces the old one; a server that does not rotate leaves the old one in place.
// invalid_grant surfaces as InvalidGrantError (permanent: only a new authorization helps);
// network failures, 5xx and timeouts as retryable errors (errors.ts).
import * as oauth from 'oauth4webapi';
import { inStep } from './classify-error';
import { assertSecureUrl, type OAuthHttp } from './http';
import { asOAuthServer, type AuthorizationServerMetadata } from './schemas';
import { clientAuthentication, oauthClient, type ClientIdentity } from './token-auth-method';
import { toTokenSet, type TokenSet } from './token-set';
import { tokenRequestOptions, withNonceRetry } from './dpop';

export interface RefreshInput {
  authorizationServer: AuthorizationServerMetadata;
  client: ClientIdentity;
  refreshToken: string;
  resource: string;
  /** The connector's DPoP private key (JWK, JSON): the request carries a proof, the token comes bound to the key. */
  dpopKey?: string | null;
  /** Milliseconds since the epoch, for expiresAt; defaults to the clock. */
  now?: number;
}

export async function refreshTokens(input: RefreshInput, http: OAuthHttp): Promise<TokenSet> {
  const as = asOAuthServer(input.authorizationServer);
  assertSecureUrl(input.authorizationServer.token_endpoint, http, 'token endpoint');
  const client = oauthClient(input.client);
  const response = await inStep('the token refresh', http.logger, async () => {
    const options = await tokenRequestOptions(http, client, input.dpopKey);
    return withNonceRetry(Boolean(input.dpopKey), async () => {
      const request = await oauth.refreshTokenGrantRequest(
        as, client, clientAuthentication(input.client), input.refreshToken,
        { ...options, additionalParameters: { resource: input.resource } },
      );
      return oauth.processRefreshTokenResponse(as, client, request);
    });
  });
  return toTokenSet(response, input.now ?? Date.now(), input.refreshToken, Boolean(input.dpopKey));
}
