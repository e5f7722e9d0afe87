// Discovery after a 401: protected-resource metadata, then the authorization server it names
// (RFC 9728 section 7.6 leaves the choice to the client: the first one with usable metadata).
// Without protected-resource metadata the server is treated as a 2025-03-26 one. A server without
// PKCE S256 is refused here already, before a client is registered with it for nothing.
import { fetchResourceMetadata } from './resource-metadata';
import {
  fetchAuthorizationServerMetadata, legacyAuthorizationServer, type AuthorizationServerFound,
} from './authorization-server-metadata';
import { canonicalServerUri } from './canonical-uri';
import { assertPkceS256 } from './authorization-request';
import { AuthorizationServerMetadataError, OAuthError } from './errors';
import type { BearerChallenge } from '../../contract/www-authenticate';
import type { ProtectedResourceMetadata } from './schemas';
import type { OAuthHttp } from './http';
import { displayUrl } from '../../contract/display-url';

export interface AuthorizationDiscovery {
  /** Canonical URI of the MCP server. */
  serverUri: string;
  /** The RFC 8707 `resource` value: the resource the metadata declares, else the server URI. */
  resource: string;
  /** Which revision's discovery found the authorization server. */
  protocol: '2025-11-25' | '2025-03-26';
  challengeScope: string | null;
  resourceMetadata: ProtectedResourceMetadata | null;
  resourceMetadataUrl: string | null;
  authorizationServer: AuthorizationServerFound;
}

export async function discoverAuthorization(
  input: { serverUrl: string; challenge: BearerChallenge | null },
  http: OAuthHttp,
): Promise<AuthorizationDiscovery> {
  const serverUri = canonicalServerUri(input.serverUrl);
  const challengeScope = input.challenge?.scope ?? null;
  const found = await fetchResourceMetadata({ serverUrl: serverUri, resourceMetadataUrl: input.challenge?.resourceMetadata }, http);
  if (!found) {
    const authorizationServer = await legacyAuthorizationServer({ serverUrl: serverUri }, http);
    assertPkceS256(authorizationServer.metadata);
    http.logger?.debug({ server: displayUrl(serverUri), source: authorizationServer.kind }, 'discovered a 2025-03-26 authorization server');
    return {
      serverUri, resource: serverUri, protocol: '2025-03-26', challengeScope,
      resourceMetadata: null, resourceMetadataUrl: null, authorizationServer,
    };
  }
  const authorizationServer = await firstUsableServer(found.metadata.authorization_servers, http);
  assertPkceS256(authorizationServer.metadata);
  http.logger?.debug({ server: displayUrl(serverUri), metadataUrl: authorizationServer.url && displayUrl(authorizationServer.url) }, 'discovered the authorization server');
  return {
    serverUri,
    resource: canonicalServerUri(found.metadata.resource),
    protocol: '2025-11-25',
    challengeScope,
    resourceMetadata: found.metadata,
    resourceMetadataUrl: found.url,
    authorizationServer,
  };
}

async function firstUsableServer(issuers: string[], http: OAuthHttp): Promise<AuthorizationServerFound> {
  let firstError: OAuthError | null = null;
  for (const issuer of issuers) {
    try {
      const found = await fetchAuthorizationServerMetadata({ issuer }, http);
      if (found) return found;
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      firstError ??= err;
    }
  }
  throw firstError ?? new AuthorizationServerMetadataError(
    `no metadata was found for the authorization server${issuers.length > 1 ? 's' : ''} ${issuers.join(', ')}`,
  );
}
