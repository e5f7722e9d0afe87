// The connector's MCP path, as contract/public-paths.ts declares it. Only the connector id is taken
// from the caller's path: the upstream path always comes from the connector's target URL, so
// nothing the caller writes after the id can reach another upstream path.
import { CONNECTOR_MCP_PATH, pathMatcher } from '../contract/public-paths';

const connectorPath = pathMatcher(CONNECTOR_MCP_PATH);

/** The connector id in its MCP path (query string allowed), or null. */
export function connectorIdFromPath(url: string): string | null {
  return connectorPath(url)?.id ?? null;
}

/** The caller's query string including its leading '?', or ''. */
export function queryOf(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return '';
  const hash = url.indexOf('#', start);
  return hash === -1 ? url.slice(start) : url.slice(start, hash);
}
