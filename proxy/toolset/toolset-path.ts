// The toolset's MCP path, `/api/v1/toolsets/{id}/mcp` (query string allowed).
const TOOLSET_PATH = /^\/api\/v1\/toolsets\/([0-9A-Fa-f-]{36})\/mcp\/?$/;

export function toolsetIdFromPath(url: string): string | null {
  const end = url.search(/[?#]/);
  const match = TOOLSET_PATH.exec(end === -1 ? url : url.slice(0, end));
  return match?.[1] ? match[1].toLowerCase() : null;
}
