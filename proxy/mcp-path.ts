// The one public path the proxy serves. Only the connector id is taken from the caller's path:
// the upstream path always comes from the connector's target URL, so nothing the caller writes
// after the id can reach another upstream path.

const MCP_PATH = /^\/api\/v1\/connectors\/([^/]+)\/mcp\/?$/;

/** The connector id in `/api/v1/connectors/{id}/mcp` (query string allowed), or null. */
export function connectorIdFromPath(url: string): string | null {
  const end = url.search(/[?#]/);
  const path = end === -1 ? url : url.slice(0, end);
  const match = MCP_PATH.exec(path);
  if (!match?.[1]) return null;
  try {
    const id = decodeURIComponent(match[1]);
    return id.includes('/') || id === '.' || id === '..' ? null : id;
  } catch {
    return null;
  }
}

/** The caller's query string including its leading '?', or ''. */
export function queryOf(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return '';
  const hash = url.indexOf('#', start);
  return hash === -1 ? url.slice(start) : url.slice(start, hash);
}
