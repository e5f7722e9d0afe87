// Enterprise-managed authorization (SEP-990): the user's ID token from the enterprise identity
// provider is exchanged there (RFC 8693 token exchange) for an Identity Assertion JWT
// Authorization Grant (ID-JAG) meant for the MCP server's authorization server and resource; the
// ID-JAG is then presented to that server with the JWT bearer grant (RFC 7523 section 2.1). No
// user is sent anywhere: the identity provider's policy decides instead of a consent page.
import * as oauth from 'oauth4webapi';
import { inStep } from './classify-error';
import { UnsupportedAuthMethodError, UpstreamResponseError } from './errors';
import { assertSecureUrl, requestOptions, type OAuthHttp } from './http';
import { asOAuthServer, type AuthorizationServerMetadata } from './schemas';
import { clientAuthentication, oauthClient, type ClientIdentity } from './token-auth-method';
import { toTokenSet, type TokenSet } from './token-set';
import { tokenRequestOptions, withNonceRetry } from './dpop';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';

export interface IdJagRequest {
  idpTokenEndpoint: string;
  idpClient: { clientId: string; clientSecret: string | null };
  idToken: string;
  /** The issuer of the MCP server's authorization server: the ID-JAG's audience. */
  audience: string;
  /** The MCP server as its protected-resource metadata names it. */
  resource: string;
  scope: string | null;
}

/** RFC 8693 token exchange at the identity provider: the ID token in, an ID-JAG out. */
export async function requestIdJag(input: IdJagRequest, http: OAuthHttp): Promise<string> {
  assertSecureUrl(input.idpTokenEndpoint, http, 'identity provider token endpoint');
  // Only the token endpoint is known of the identity provider; oauth4webapi wants an issuer too,
  // which it would compare only against an ID token in the answer (an exchange returns none).
  const idp: oauth.AuthorizationServer = { issuer: new URL(input.idpTokenEndpoint).origin, token_endpoint: input.idpTokenEndpoint };
  const client: oauth.Client = { client_id: input.idpClient.clientId };
  // The client id always in the body, with the secret beside it where there is one (client_secret_post).
  const auth = input.idpClient.clientSecret ? oauth.ClientSecretPost(input.idpClient.clientSecret) : oauth.None();
  const parameters: Record<string, string> = {
    requested_token_type: ID_JAG_TYPE, audience: input.audience, resource: input.resource,
    subject_token: input.idToken, subject_token_type: ID_TOKEN_TYPE,
  };
  if (input.scope) parameters.scope = input.scope;
  const response = await inStep('the token exchange at the identity provider', http.logger, async () => {
    const request = await oauth.genericTokenEndpointRequest(idp, client, auth, TOKEN_EXCHANGE_GRANT, parameters, requestOptions(http));
    // An ID-JAG is no access token: RFC 8693 gives it the token_type N_A.
    return oauth.processGenericTokenEndpointResponse(idp, client, request, { recognizedTokenTypes: { n_a: () => undefined } });
  });
  if (response.issued_token_type !== ID_JAG_TYPE) {
    throw new UpstreamResponseError('the identity provider issued no ID-JAG (issued_token_type is not urn:ietf:params:oauth:token-type:id-jag)');
  }
  return response.access_token;
}

export interface JwtBearerInput {
  authorizationServer: AuthorizationServerMetadata;
  client: ClientIdentity;
  /** The ID-JAG. */
  assertion: string;
  resource: string;
  scope: string | null;
  /** The connector's DPoP private key (JWK, JSON): the request carries a proof, the token comes bound to the key. */
  dpopKey?: string | null;
  /** Milliseconds since the epoch, for expiresAt; defaults to the clock. */
  now?: number;
}

/** Refused before anything is sent when the server's metadata lists its grants without this one. */
export function assertJwtBearerSupported(as: AuthorizationServerMetadata): void {
  if (as.grant_types_supported && !as.grant_types_supported.includes(JWT_BEARER_GRANT)) {
    throw new UnsupportedAuthMethodError(`the authorization server ${as.issuer} does not offer the JWT bearer grant`);
  }
}

/** RFC 7523 JWT bearer grant at the MCP server's authorization server: the ID-JAG in, an access token out. */
export async function requestJwtBearerToken(input: JwtBearerInput, http: OAuthHttp): Promise<TokenSet> {
  const as = asOAuthServer(input.authorizationServer);
  assertSecureUrl(input.authorizationServer.token_endpoint, http, 'token endpoint');
  const client = oauthClient(input.client);
  const parameters: Record<string, string> = { assertion: input.assertion, resource: input.resource };
  if (input.scope) parameters.scope = input.scope;
  const response = await inStep('the JWT bearer grant', http.logger, async () => {
    const options = await tokenRequestOptions(http, client, input.dpopKey);
    return withNonceRetry(Boolean(input.dpopKey), async () => {
      const request = await oauth.genericTokenEndpointRequest(as, client, clientAuthentication(input.client), JWT_BEARER_GRANT, parameters, options);
      return oauth.processGenericTokenEndpointResponse(as, client, request);
    });
  });
  return toTokenSet(response, input.now ?? Date.now(), null, Boolean(input.dpopKey));
}
