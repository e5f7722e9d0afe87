// The canonical URI of an MCP server (MCP 2025-11-25, "Canonical Server URI"; RFC 8707 section 2):
// the RFC 8707 `resource` value and what RFC 9728 metadata must describe. Lower-case scheme and
// host, no default port, no fragment, no trailing slash.
import { InvalidServerUrlError } from './errors';

export function canonicalServerUri(input: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new InvalidServerUrlError(`the MCP server URL ${JSON.stringify(input)} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidServerUrlError(`the MCP server URL must be http or https, not ${url.protocol}`);
  }
  if (url.username || url.password) throw new InvalidServerUrlError('the MCP server URL must not carry credentials');
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path}${url.search}`;
}

/**
 * Whether protected-resource metadata describing `resource` may serve the MCP server at
 * `serverUri`: the same resource, or one on the same origin whose path is a whole-segment prefix
 * of the server's (an origin-wide resource, as the root well-known location implies).
 */
export function resourceCovers(resource: string, serverUri: string): boolean {
  let declared: URL;
  try {
    declared = new URL(canonicalServerUri(resource));
  } catch {
    return false;
  }
  const server = new URL(serverUri);
  if (declared.href === server.href) return true;
  if (declared.origin !== server.origin || declared.search) return false;
  const prefix = declared.pathname === '/' ? '/' : `${declared.pathname}/`;
  return server.pathname.startsWith(prefix);
}
