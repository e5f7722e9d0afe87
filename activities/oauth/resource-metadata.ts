// RFC 9728 protected-resource metadata, located as MCP 2025-11-25 says: the challenge's
// `resource_metadata` URL when there is one (and then only it), else the path-aware well-known
// URL, else the root one. The document must describe the MCP server (see resourceCovers).
import { describeIssues, ProtectedResourceMetadataSchema, type ProtectedResourceMetadata } from './schemas';
import { inStep, statusError } from './classify-error';
import { ResourceMetadataError, ResourceMismatchError, UpstreamUnavailableError, type OAuthError } from './errors';
import { canonicalServerUri, resourceCovers } from './canonical-uri';
import { isJsonContentType, readJsonLimited, type OAuthHttp } from './http';
import { displayUrl } from '../../contract/display-url';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface ResourceMetadataFound {
  metadata: ProtectedResourceMetadata;
  /** Where the document was read. */
  url: string;
}

/** The well-known locations to try, in order (path-aware first when the server has a path). */
export function resourceMetadataUrls(serverUrl: string): string[] {
  const server = new URL(canonicalServerUri(serverUrl));
  const root = `${server.origin}${WELL_KNOWN}`;
  const pathAware = `${server.origin}${WELL_KNOWN}${server.pathname === '/' ? '' : server.pathname}${server.search}`;
  return pathAware === root ? [root] : [pathAware, root];
}

/**
 * Reads the metadata for the MCP server at `serverUrl`. Returns null when no location has any
 * (a 2025-03-26 server), and throws when a document exists but cannot be used.
 */
export async function fetchResourceMetadata(
  input: { serverUrl: string; resourceMetadataUrl?: string | null },
  http: OAuthHttp,
): Promise<ResourceMetadataFound | null> {
  const serverUri = canonicalServerUri(input.serverUrl);
  if (input.resourceMetadataUrl) {
    const url = challengeUrl(input.resourceMetadataUrl, serverUri);
    const found = await readAt(url, serverUri, http);
    if (found === 'absent') throw new ResourceMetadataError(`the resource metadata the MCP server points to (${displayUrl(url)}) was not found`);
    return found;
  }
  let transient: OAuthError | null = null;
  for (const url of resourceMetadataUrls(serverUri)) {
    try {
      const found = await readAt(url, serverUri, http);
      if (found !== 'absent') return found;
    } catch (err) {
      if (!(err instanceof UpstreamUnavailableError)) throw err;
      transient = err; // a broken location may still be followed by a working one
    }
  }
  if (transient) throw transient;
  return null;
}

/** The challenge's URL, resolved against the server (lenient) and limited to http(s) (strict). */
function challengeUrl(value: string, serverUri: string): string {
  const url = URL.parse(value, serverUri);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new ResourceMetadataError(`the MCP server points to resource metadata at ${JSON.stringify(displayUrl(value).slice(0, 200))}, which is not an http(s) URL`);
  }
  return url.href;
}

async function readAt(url: string, serverUri: string, http: OAuthHttp): Promise<ResourceMetadataFound | 'absent'> {
  // Origin and path: the path-aware location carries the connector URL's query, which may hold a key.
  const step = `reading the protected resource metadata at ${displayUrl(url)}`;
  const body = await inStep(step, http.logger, async () => {
    const response = await http.fetch(url, { headers: { accept: 'application/json' } });
    if (response.status >= 400 && response.status < 500 && response.status !== 429) {
      await response.body?.cancel();
      return 'absent' as const;
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw statusError(response.status, step);
    }
    if (!isJsonContentType(response)) {
      await response.body?.cancel();
      throw new ResourceMetadataError(`the protected resource metadata at ${displayUrl(url)} is not JSON`);
    }
    return readJsonLimited(response);
  });
  if (body === 'absent') return 'absent';
  return { metadata: validate(body, url, serverUri), url };
}

function validate(body: unknown, url: string, serverUri: string): ProtectedResourceMetadata {
  const parsed = ProtectedResourceMetadataSchema.safeParse(body);
  if (!parsed.success) {
    throw new ResourceMetadataError(`the protected resource metadata at ${displayUrl(url)} is not usable: ${describeIssues(parsed.error)}`);
  }
  if (!resourceCovers(parsed.data.resource, serverUri)) {
    throw new ResourceMismatchError(
      `the protected resource metadata at ${displayUrl(url)} describes ${displayUrl(parsed.data.resource)}, not the MCP server ${displayUrl(serverUri)}`,
    );
  }
  return parsed.data;
}
