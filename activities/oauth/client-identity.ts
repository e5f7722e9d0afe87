// Who the service is towards an authorization server, in the order MCP 2025-11-25 gives
// ("Client Registration Approaches"): credentials given by the request or a preset; else a Client
// ID Metadata Document when the server supports them; else a registration made earlier for this
// server; else a new Dynamic Client Registration; else a clear 422.
import { NoClientIdentityError } from './errors';
import { clientMetadataDocumentUrl } from '../../contract/oauth-client-metadata';
import { registerClient, registrationUsable, type RegisteredClient } from './client-registration';
import { chooseTokenAuthMethod, type ClientIdentity, type TokenAuthMethod } from './token-auth-method';
import type { AuthorizationServerMetadata } from './schemas';
import type { OAuthHttp } from './http';

export interface ResolveClientInput {
  authorizationServer: AuthorizationServerMetadata;
  /**
   * From the create request or the matched preset. Without authMethod, the method is chosen from
   * what the server advertises (Basic before Post), as nothing else says how the client was registered.
   */
  given?: { clientId: string; clientSecret?: string | null; authMethod?: TokenAuthMethod | null } | null;
  /** A registration stored earlier for this authorization server. */
  registration?: RegisteredClient | null;
  baseUrl: string;
  redirectUri: string;
  clientName?: string;
  /** Milliseconds since the epoch; defaults to the clock. */
  now?: number;
}

export interface ResolvedClient {
  identity: ClientIdentity;
  /** Set when a new registration was made: the caller stores it for this issuer. */
  newRegistration: RegisteredClient | null;
}

export async function resolveClientIdentity(input: ResolveClientInput, http: OAuthHttp): Promise<ResolvedClient> {
  const as = input.authorizationServer;
  if (input.given) {
    const clientSecret = input.given.clientSecret || null;
    const authMethod = chooseTokenAuthMethod(as, { hasSecret: clientSecret !== null, registered: input.given.authMethod });
    return { identity: { clientId: input.given.clientId, clientSecret, authMethod, source: 'given' }, newRegistration: null };
  }
  const documentUrl = clientMetadataDocumentUrl(input.baseUrl);
  // The document declares a public client, so it only serves where "none" is accepted.
  const publicAllowed = as.token_endpoint_auth_methods_supported?.includes('none') ?? true;
  if (as.client_id_metadata_document_supported === true && documentUrl && publicAllowed) {
    return { identity: { clientId: documentUrl, clientSecret: null, authMethod: 'none', source: 'metadata-document' }, newRegistration: null };
  }
  const stored = input.registration;
  if (stored && registrationUsable(stored, as, input.redirectUri, input.now ?? Date.now())) {
    return { identity: fromRegistration(stored), newRegistration: null };
  }
  if (as.registration_endpoint) {
    const registration = await registerClient({ authorizationServer: as, redirectUri: input.redirectUri, clientName: input.clientName }, http);
    return { identity: fromRegistration(registration), newRegistration: registration };
  }
  throw new NoClientIdentityError(noIdentityReason(as, documentUrl));
}

function fromRegistration(registration: RegisteredClient): ClientIdentity {
  return {
    clientId: registration.clientId,
    clientSecret: registration.clientSecret,
    authMethod: registration.authMethod,
    source: 'registered',
  };
}

function noIdentityReason(as: AuthorizationServerMetadata, documentUrl: string | null): string {
  const cimd = as.client_id_metadata_document_supported && !documentUrl
    ? ' (it supports client ID metadata documents, but they need the service to run under an https base URL)'
    : '';
  return `no client_id was given, and the authorization server ${as.issuer} offers neither dynamic client registration nor client ID metadata documents${cimd}: create the connector with a client_id (and client_secret) registered there`;
}
