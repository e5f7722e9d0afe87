// Authorization-server metadata: RFC 8414 and OpenID Connect Discovery, tried in the order MCP
// 2025-11-25 gives ("Authorization Server Metadata Discovery"). oauth4webapi checks the issuer;
// the schema checks the fields the later steps rely on.
import * as oauth from 'oauth4webapi';
import { AuthorizationServerMetadataSchema, describeIssues, type AuthorizationServerMetadata } from './schemas';
import { inStep, statusError } from './classify-error';
import {
  AuthorizationServerMetadataError, IssuerMismatchError, UpstreamUnavailableError, type OAuthError,
} from './errors';
import { assertSecureUrl, readJsonLimited, type OAuthHttp } from './http';
import { displayUrl } from '../../contract/display-url';

export type MetadataKind = 'oauth' | 'oidc';

export interface MetadataLocation {
  url: string;
  kind: MetadataKind;
}

export interface AuthorizationServerFound {
  metadata: AuthorizationServerMetadata;
  /** Where the metadata was read; null when 2025-03-26 default endpoints were assumed. */
  url: string | null;
  kind: MetadataKind | 'default-endpoints';
}

/** The discovery URLs for `issuer`, in the order they are tried. */
export function authorizationServerMetadataUrls(issuer: string): MetadataLocation[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path) {
    return [
      { url: `${url.origin}/.well-known/oauth-authorization-server`, kind: 'oauth' },
      { url: `${url.origin}/.well-known/openid-configuration`, kind: 'oidc' },
    ];
  }
  return [
    { url: `${url.origin}/.well-known/oauth-authorization-server${path}`, kind: 'oauth' },
    { url: `${url.origin}/.well-known/openid-configuration${path}`, kind: 'oidc' },
    { url: `${url.origin}${path}/.well-known/openid-configuration`, kind: 'oidc' },
  ];
}

/**
 * How the document's `issuer` must relate to the one it was fetched for. `exact` is RFC 8414
 * section 3.3, wherever the issuer came from RFC 9728 metadata. `same-origin` serves 2025-03-26
 * servers only: there the location is derived from the MCP server's origin, not from an issuer,
 * so the document may name an issuer with a path (e.g. `https://host/oauth`); it must still be on
 * that origin, and from then on it is the issuer every later check (RFC 9207 `iss`) compares to.
 */
export type IssuerRule = 'exact' | 'same-origin';

/** The first usable document among the discovery URLs, or null when none exists. */
export async function fetchAuthorizationServerMetadata(
  input: { issuer: string; issuerRule?: IssuerRule },
  http: OAuthHttp,
): Promise<AuthorizationServerFound | null> {
  assertSecureUrl(input.issuer, http, 'authorization server');
  let transient: OAuthError | null = null;
  for (const location of authorizationServerMetadataUrls(input.issuer)) {
    try {
      const metadata = await readAt(location.url, input.issuer, input.issuerRule ?? 'exact', http);
      if (metadata) return { metadata, url: location.url, kind: location.kind };
    } catch (err) {
      if (!(err instanceof UpstreamUnavailableError)) throw err;
      transient = err; // some servers answer 5xx for documents they do not have
    }
  }
  if (transient) throw transient;
  return null;
}

async function readAt(url: string, issuer: string, rule: IssuerRule, http: OAuthHttp): Promise<AuthorizationServerMetadata | null> {
  const step = `reading the authorization server metadata at ${displayUrl(url)}`;
  const raw = await inStep(step, http.logger, async () => {
    const response = await http.fetch(url, { headers: { accept: 'application/json' } });
    if (response.status >= 400 && response.status < 500 && response.status !== 429) {
      await response.body?.cancel();
      return null;
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw statusError(response.status, step);
    }
    const body = await readJsonLimited(response);
    return checkIssuer(body, rule === 'same-origin' ? sameOriginIssuer(body, issuer, url) : issuer, url);
  });
  return raw === null ? null : validate(raw, url, http);
}

/** The document's own issuer when it is on `origin`'s origin; else `origin`, which then fails the comparison. */
function sameOriginIssuer(body: unknown, origin: string, url: string): string {
  const named = (body as { issuer?: unknown } | null)?.issuer;
  const parsed = typeof named === 'string' ? URL.parse(named) : null;
  if (!parsed || parsed.origin !== new URL(origin).origin) return origin;
  if (parsed.search || parsed.hash) throw new IssuerMismatchError(`the metadata at ${url} names an issuer with a query or fragment`);
  return named as string;
}

/** oauth4webapi's issuer comparison, fed the already size-limited body. */
async function checkIssuer(body: unknown, issuer: string, url: string): Promise<oauth.AuthorizationServer> {
  const replay = new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  try {
    return await oauth.processDiscoveryResponse(new URL(issuer), replay);
  } catch (err) {
    if (err instanceof oauth.OperationProcessingError && err.code === oauth.JSON_ATTRIBUTE_COMPARISON) {
      const found = (body as { issuer?: unknown }).issuer;
      throw new IssuerMismatchError(`the metadata at ${url} names the issuer ${String(found)}, not ${issuer}`);
    }
    throw err;
  }
}

function validate(raw: oauth.AuthorizationServer, url: string, http: OAuthHttp): AuthorizationServerMetadata {
  const parsed = AuthorizationServerMetadataSchema.safeParse(raw);
  if (!parsed.success) {
    throw new AuthorizationServerMetadataError(`the authorization server metadata at ${displayUrl(url)} is not usable: ${describeIssues(parsed.error)}`);
  }
  const metadata = parsed.data;
  if (metadata.response_types_supported && !metadata.response_types_supported.includes('code')) {
    throw new AuthorizationServerMetadataError(`the authorization server at ${metadata.issuer} does not support the authorization code flow`);
  }
  assertSecureUrl(metadata.authorization_endpoint, http, 'authorization endpoint');
  assertSecureUrl(metadata.token_endpoint, http, 'token endpoint');
  return metadata;
}

/**
 * MCP 2025-03-26 servers have no protected-resource metadata: their origin is the authorization
 * server, with RFC 8414 metadata or, failing that, the default endpoints that revision names.
 */
export async function legacyAuthorizationServer(input: { serverUrl: string }, http: OAuthHttp): Promise<AuthorizationServerFound> {
  const origin = new URL(input.serverUrl).origin;
  const found = await fetchAuthorizationServerMetadata({ issuer: origin, issuerRule: 'same-origin' }, http);
  if (found) return found;
  return { metadata: defaultEndpoints(origin), url: null, kind: 'default-endpoints' };
}

function defaultEndpoints(origin: string): AuthorizationServerMetadata {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
    response_types_supported: ['code'],
    // 2025-03-26 made PKCE mandatory for every client and server, and a server without metadata
    // has no way to advertise it: S256 is the one method the revision allows.
    code_challenge_methods_supported: ['S256'],
  };
}
