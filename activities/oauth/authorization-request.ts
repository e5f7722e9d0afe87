// The authorization request (RFC 6749 section 4.1.1) as MCP 2025-11-25 wants it: PKCE with S256
// only, refused outright where the server does not advertise S256; the RFC 8707 `resource`;
// a state of 256 random bits. The verifier and state are returned for the caller to seal and keep.
import crypto from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { PkceNotSupportedError } from './errors';
import { assertSecureUrl, type OAuthHttp } from './http';
import type { AuthorizationServerMetadata } from './schemas';
import type { ClientIdentity } from './token-auth-method';

export interface StartAuthorizationInput {
  authorizationServer: AuthorizationServerMetadata;
  client: ClientIdentity;
  redirectUri: string;
  /** The RFC 8707 resource: the MCP server's canonical URI (AuthorizationDiscovery.resource). */
  resource: string;
  /** From selectScope(); null omits the parameter. */
  scope: string | null;
}

export interface AuthorizationStart {
  /** The full URL to send the user to. */
  authorizationUrl: string;
  /** Secret: single use, compared on the callback. */
  state: string;
  /** Secret: sent with the code exchange. */
  codeVerifier: string;
  scope: string | null;
}

/** MCP 2025-11-25 "Authorization Code Protection": no advertised S256, no authorization. */
export function assertPkceS256(as: AuthorizationServerMetadata): void {
  const methods = as.code_challenge_methods_supported;
  if (methods?.includes('S256')) return;
  throw new PkceNotSupportedError(methods
    ? `the authorization server ${as.issuer} does not support PKCE with S256 (it advertises ${methods.join(', ') || 'no method'}), so it cannot be used safely`
    : `the authorization server ${as.issuer} does not advertise PKCE support (code_challenge_methods_supported), so it cannot be used safely`);
}

export function newState(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export async function startAuthorization(
  input: StartAuthorizationInput,
  http: Pick<OAuthHttp, 'allowInsecureHttp'> = {},
): Promise<AuthorizationStart> {
  const as = input.authorizationServer;
  assertPkceS256(as);
  const url = assertSecureUrl(as.authorization_endpoint, http, 'authorization endpoint');
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = newState();
  const params = url.searchParams;
  params.set('response_type', 'code');
  params.set('client_id', input.client.clientId);
  params.set('redirect_uri', input.redirectUri);
  params.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
  params.set('code_challenge_method', 'S256');
  params.set('state', state);
  params.set('resource', input.resource);
  if (input.scope) params.set('scope', input.scope);
  else params.delete('scope');
  // OpenID Connect servers drop offline_access unless consent is prompted for (OIDC Core 11);
  // plain OAuth servers ignore the parameter.
  if (input.scope?.split(' ').includes('offline_access')) params.set('prompt', 'consent');
  return { authorizationUrl: url.href, state, codeVerifier, scope: input.scope };
}
