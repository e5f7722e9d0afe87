// The toolset's MCP path, as contract/public-paths.ts declares it (query string allowed).
import { TOOLSET_MCP_PATH, pathMatcher } from '../../contract/public-paths';

const toolsetPath = pathMatcher(TOOLSET_MCP_PATH);

/** The toolset id in its MCP path, lower-cased (toolset ids are UUIDs), or null. */
export function toolsetIdFromPath(url: string): string | null {
  return toolsetPath(url)?.id?.toLowerCase() ?? null;
}
