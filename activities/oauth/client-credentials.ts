// The client credentials grant (RFC 6749 section 4.4; SEP-1046) with the RFC 8707 resource: the
// service is the resource owner, so no user, redirect or PKCE is involved. The client proves
// itself with its secret (client_secret_basic or _post, as the server's metadata allows) or with a
// signed RFC 7523 assertion (private_key_jwt). There is no refresh token: a new token is simply
// requested again with the same credentials.
import * as oauth from 'oauth4webapi';
import { inStep } from './classify-error';
import { UnsupportedAuthMethodError } from './errors';
import { assertSecureUrl, type OAuthHttp } from './http';
import { asOAuthServer, type AuthorizationServerMetadata } from './schemas';
import {
  chooseTokenAuthMethod, clientAuthentication, oauthClient, type ClientAuthMethod, type ClientIdentity, type SigningAlgorithm,
} from './token-auth-method';
import { toTokenSet, type TokenSet } from './token-set';
import { tokenRequestOptions, withNonceRetry } from './dpop';

export interface ClientCredentialsInput {
  authorizationServer: AuthorizationServerMetadata;
  client: ClientIdentity;
  resource: string;
  scope: string | null;
  /** The connector's DPoP private key (JWK, JSON): the request carries a proof, the token comes bound to the key. */
  dpopKey?: string | null;
  /** Milliseconds since the epoch, for expiresAt; defaults to the clock. */
  now?: number;
}

/** How a client with `material` authenticates at this server; refused when the server does not offer it. */
export function clientCredentialsAuthMethod(
  as: AuthorizationServerMetadata, material: { hasSecret: boolean; algorithm: SigningAlgorithm | null },
): ClientAuthMethod {
  if (material.hasSecret) return chooseTokenAuthMethod(as, { hasSecret: true });
  const methods = as.token_endpoint_auth_methods_supported;
  if (methods && !methods.includes('private_key_jwt')) {
    throw new UnsupportedAuthMethodError(`the authorization server ${as.issuer} does not accept private_key_jwt`);
  }
  const algorithms = as.token_endpoint_auth_signing_alg_values_supported;
  if (algorithms && material.algorithm && !algorithms.includes(material.algorithm)) {
    throw new UnsupportedAuthMethodError(`the authorization server ${as.issuer} does not accept ${material.algorithm} client assertions`);
  }
  return 'private_key_jwt';
}

/** Asks the token endpoint for a token with the client's own credentials. */
export async function requestClientCredentialsToken(input: ClientCredentialsInput, http: OAuthHttp): Promise<TokenSet> {
  const as = asOAuthServer(input.authorizationServer);
  assertSecureUrl(input.authorizationServer.token_endpoint, http, 'token endpoint');
  const client = oauthClient(input.client);
  const parameters: Record<string, string> = { resource: input.resource };
  if (input.scope) parameters.scope = input.scope;
  const response = await inStep('the client credentials grant', http.logger, async () => {
    const options = await tokenRequestOptions(http, client, input.dpopKey);
    return withNonceRetry(Boolean(input.dpopKey), async () => {
      const request = await oauth.clientCredentialsGrantRequest(as, client, clientAuthentication(input.client), parameters, options);
      return oauth.processClientCredentialsResponse(as, client, request);
    });
  });
  return toTokenSet(response, input.now ?? Date.now(), null, Boolean(input.dpopKey));
}
