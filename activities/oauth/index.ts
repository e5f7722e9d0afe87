// The client side of OAuth for MCP servers, one function per step; each takes plain JSON input
// and the injected OAuthHttp, so each can run as its own Temporal activity.
export * from './errors';
export { classifyError } from './classify-error';
export { createGuardedFetch, type GuardedFetch, type GuardedFetchOptions } from '../../platform/guarded-fetch';
export { type FetchLike, type OAuthHttp } from './http';
export { parseWwwAuthenticate, findBearerChallenge, type BearerChallenge, type Challenge } from '../../contract/www-authenticate';
export { canonicalServerUri, resourceCovers } from './canonical-uri';
export { probeForChallenge, type AuthProbeResult } from './auth-probe';
export { fetchResourceMetadata, resourceMetadataUrls, type ResourceMetadataFound } from './resource-metadata';
export {
  authorizationServerMetadataUrls, fetchAuthorizationServerMetadata, legacyAuthorizationServer,
  type AuthorizationServerFound, type MetadataKind,
} from './authorization-server-metadata';
export { discoverAuthorization, type AuthorizationDiscovery } from './discover';
export { checkAuthorizationServerBinding, type BindingCheck } from './authorization-server-binding';
export { selectScope, type ScopeSources } from './scope';
export {
  buildClientMetadataDocument, clientMetadataDocumentUrl, oauthCallbackUrl,
  CLIENT_METADATA_PATH, OAUTH_CALLBACK_PATH, type ClientMetadataDocument,
} from '../../contract/oauth-client-metadata';
export { registerClient, registrationUsable, type RegisteredClient } from './client-registration';
export { resolveClientIdentity, type ResolveClientInput, type ResolvedClient } from './client-identity';
export { chooseTokenAuthMethod, type ClientIdentity, type TokenAuthMethod } from './token-auth-method';
export { assertPkceS256, startAuthorization, type AuthorizationStart, type StartAuthorizationInput } from './authorization-request';
export { exchangeCode, type ExchangeCodeInput } from './code-exchange';
export { clientCredentialsAuthMethod, requestClientCredentialsToken, type ClientCredentialsInput } from './client-credentials';
export { assertJwtBearerSupported, requestIdJag, requestJwtBearerToken, type IdJagRequest, type JwtBearerInput } from './enterprise-managed';
export { refreshTokens, type RefreshInput } from './refresh';
export { revokeTokens, type RevokeInput, type RevokeResult } from './revoke';
export { type TokenSet } from './token-set';
export { type AuthorizationServerMetadata, type ProtectedResourceMetadata } from './schemas';
