// Token revocation (RFC 7009) on disconnect and delete. The refresh token goes first: servers
// commonly revoke the whole grant with it. Revoking is idempotent (an unknown or already revoked
// token is answered 200), so a retry after a partial failure is harmless. A token type the server
// cannot revoke (unsupported_token_type, e.g. self-contained JWT access tokens) is reported, not
// thrown: nothing the service could do would change it.
import * as oauth from 'oauth4webapi';
import { inStep } from './classify-error';
import { AuthorizationServerError } from './errors';
import { assertSecureUrl, requestOptions, type OAuthHttp } from './http';
import { asOAuthServer, type AuthorizationServerMetadata } from './schemas';
import { clientAuthentication, oauthClient, type ClientIdentity } from './token-auth-method';

export interface RevokeInput {
  authorizationServer: AuthorizationServerMetadata;
  client: ClientIdentity;
  accessToken?: string | null;
  refreshToken?: string | null;
}

export type RevocableToken = 'refresh_token' | 'access_token';

export interface RevokeResult {
  /** False when the server has no revocation endpoint: nothing was sent. */
  supported: boolean;
  revoked: RevocableToken[];
  /** Tokens the server answered unsupported_token_type for. */
  notRevocable: RevocableToken[];
}

export async function revokeTokens(input: RevokeInput, http: OAuthHttp): Promise<RevokeResult> {
  const endpoint = input.authorizationServer.revocation_endpoint;
  if (!endpoint) return { supported: false, revoked: [], notRevocable: [] };
  assertSecureUrl(endpoint, http, 'revocation endpoint');
  const result: RevokeResult = { supported: true, revoked: [], notRevocable: [] };
  const tokens: Array<[RevocableToken, string | null | undefined]> = [
    ['refresh_token', input.refreshToken],
    ['access_token', input.accessToken],
  ];
  for (const [hint, token] of tokens) {
    if (!token) continue;
    const outcome = await revokeOne(input, hint, token, http);
    (outcome === 'revoked' ? result.revoked : result.notRevocable).push(hint);
  }
  return result;
}

async function revokeOne(input: RevokeInput, hint: RevocableToken, token: string, http: OAuthHttp): Promise<'revoked' | 'not-revocable'> {
  try {
    await send(input, hint, token, http);
    return 'revoked';
  } catch (err) {
    if (err instanceof AuthorizationServerError && err.oauthError === 'unsupported_token_type') return 'not-revocable';
    throw err;
  }
}

async function send(input: RevokeInput, hint: RevocableToken, token: string, http: OAuthHttp): Promise<void> {
  await inStep(`revoking the ${hint.replace('_', ' ')}`, http.logger, async () => {
    const response = await oauth.revocationRequest(
      asOAuthServer(input.authorizationServer), oauthClient(input.client), clientAuthentication(input.client), token,
      { ...requestOptions(http), additionalParameters: { token_type_hint: hint } },
    );
    await oauth.processRevocationResponse(response);
  });
}
