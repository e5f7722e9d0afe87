// The service's OAuth Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document;
// MCP 2025-11-25 "Client ID Metadata Documents"): its URL is the client_id, so it must be an https
// URL with a path, and the document's client_id must equal that URL exactly. The API serves
// buildClientMetadataDocument() at clientMetadataDocumentUrl().

export const CLIENT_METADATA_PATH = '/api/v1/oauth/client-metadata.json';
export const OAUTH_CALLBACK_PATH = '/api/v1/connectors/oauth/callback';
/** The service's consent page: the authorization_endpoint it hands out (the specification's decisions, "Callers"). */
export const CONSENT_PATH = '/api/v1/connectors/oauth/authorize';

export function consentPageUrl(baseUrl: string, stateHash: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${CONSENT_PATH}?request=${encodeURIComponent(stateHash)}`;
}

/** The cookie that binds a state to the browser that opened the consent page; one per flow. */
export const consentCookieName = (stateHash: string): string => `connector_consent_${stateHash.slice(0, 16).replace(/[^A-Za-z0-9_-]/g, '_')}`;
export const DEFAULT_CLIENT_NAME = 'Connector Registry';
/** SEP-837 (MCP 2026-07-28): the service names its OIDC application type; it is a web application. */
export const APPLICATION_TYPE = 'web';

export interface ClientMetadataDocument {
  client_id: string;
  client_name: string;
  application_type: typeof APPLICATION_TYPE;
  client_uri?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
}

/** The redirect URI of the authorization code flow under the service's base URL. */
export function oauthCallbackUrl(baseUrl: string): string {
  return joinPath(baseUrl, OAUTH_CALLBACK_PATH);
}

/** The client_id URL, or null when the base URL is not https (metadata documents need https). */
export function clientMetadataDocumentUrl(baseUrl: string): string | null {
  const url = new URL(baseUrl);
  return url.protocol === 'https:' ? joinPath(baseUrl, CLIENT_METADATA_PATH) : null;
}

export function buildClientMetadataDocument(input: { baseUrl: string; clientName?: string; redirectUri?: string }): ClientMetadataDocument {
  const clientId = clientMetadataDocumentUrl(input.baseUrl);
  if (!clientId) throw new Error(`a client metadata document needs an https base URL, not ${new URL(input.baseUrl).origin}`);
  return {
    client_id: clientId,
    client_name: input.clientName ?? DEFAULT_CLIENT_NAME,
    application_type: APPLICATION_TYPE,
    client_uri: new URL(input.baseUrl).origin,
    redirect_uris: [input.redirectUri ?? oauthCallbackUrl(input.baseUrl)],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

function joinPath(baseUrl: string, path: string): string {
  const url = new URL(baseUrl);
  const prefix = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${prefix}${path}`;
}
