// The callback and the code exchange (RFC 6749 sections 4.1.2 and 4.1.3). The callback is checked
// in the order that defeats mix-up first: RFC 9207 `iss` (required where the server advertises
// it, compared wherever present), then `state`, then an error the server relayed. The exchange
// sends the PKCE verifier and the RFC 8707 resource.
import crypto from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { inStep } from './classify-error';
import { AuthorizationDeniedError, CallbackIssuerError, InvalidCallbackError } from './errors';
import { assertSecureUrl, type OAuthHttp } from './http';
import { asOAuthServer, OAUTH_ERROR_CODE, type AuthorizationServerMetadata } from './schemas';
import { clientAuthentication, oauthClient, type ClientIdentity } from './token-auth-method';
import { toTokenSet, type TokenSet } from './token-set';
import { tokenRequestOptions, withNonceRetry } from './dpop';

export interface ExchangeCodeInput {
  authorizationServer: AuthorizationServerMetadata;
  client: ClientIdentity;
  /** The callback URL as the user agent delivered it, or just its query string. */
  callback: string;
  expectedState: string;
  codeVerifier: string;
  redirectUri: string;
  resource: string;
  /** The connector's DPoP private key (JWK, JSON): the request carries a proof, the token comes bound to the key. */
  dpopKey?: string | null;
  /** Milliseconds since the epoch, for expiresAt; defaults to the clock. */
  now?: number;
}

export async function exchangeCode(input: ExchangeCodeInput, http: OAuthHttp): Promise<TokenSet> {
  const as = input.authorizationServer;
  const params = checkCallback(as, callbackParams(input.callback), input.expectedState);
  assertSecureUrl(as.token_endpoint, http, 'token endpoint');
  const client = oauthClient(input.client);
  const response = await inStep('the authorization code exchange', http.logger, async () => {
    const validated = oauth.validateAuthResponse(asOAuthServer(as), client, params, input.expectedState);
    const options = await tokenRequestOptions(http, client, input.dpopKey);
    return withNonceRetry(Boolean(input.dpopKey), async () => {
      const request = await oauth.authorizationCodeGrantRequest(
        asOAuthServer(as), client, clientAuthentication(input.client), validated, input.redirectUri, input.codeVerifier,
        { ...options, additionalParameters: { resource: input.resource } },
      );
      return oauth.processAuthorizationCodeResponse(asOAuthServer(as), client, request);
    });
  });
  return toTokenSet(response, input.now ?? Date.now(), null, Boolean(input.dpopKey));
}

/** The callback's parameters, after the checks that must come before any other use of them. */
export function checkCallback(as: AuthorizationServerMetadata, params: URLSearchParams, expectedState: string): URLSearchParams {
  const iss = params.get('iss');
  if (iss === null && as.authorization_response_iss_parameter_supported) {
    throw new CallbackIssuerError(`the callback lacks the iss parameter that ${as.issuer} promises (RFC 9207)`);
  }
  if (iss !== null && iss !== as.issuer) {
    throw new CallbackIssuerError(`the callback comes from the issuer ${JSON.stringify(iss.slice(0, 200))}, not from ${as.issuer} (RFC 9207)`);
  }
  if (!sameSecret(params.get('state'), expectedState)) {
    throw new InvalidCallbackError('the callback state does not match the authorization request');
  }
  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description');
    const code = OAUTH_ERROR_CODE.test(error) ? error : 'server_error';
    const detail = description ? `: ${description.replace(/[^\x20-\x7E]/g, ' ').slice(0, 200)}` : '';
    throw new AuthorizationDeniedError(`the authorization server refused the authorization (${code})${detail}`, code);
  }
  if (!params.get('code')) throw new InvalidCallbackError('the callback carries no authorization code');
  return params;
}

function callbackParams(callback: string): URLSearchParams {
  const query = URL.canParse(callback) ? new URL(callback).search : callback;
  return new URLSearchParams(query.startsWith('?') ? query.slice(1) : query);
}

function sameSecret(received: string | null, expected: string): boolean {
  if (received === null) return false;
  const a = Buffer.from(received);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
