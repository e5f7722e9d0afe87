// A member's resource URIs as the toolset shows them, mapped reversibly:
// `mcp-member://<prefix>/<the member's URI, percent-encoded>`. The prefix says which member to
// read it from, and the member gets back exactly the URI it listed.
const SCHEME = 'mcp-member://';

export function toolsetUri(prefix: string, memberUri: string): string {
  return `${SCHEME}${prefix}/${encodeURIComponent(memberUri)}`;
}

/** The member's prefix and its own URI, or null for a URI this toolset did not hand out. */
export function memberUri(uri: string): { prefix: string; uri: string } | null {
  if (!uri.startsWith(SCHEME)) return null;
  const rest = uri.slice(SCHEME.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return null;
  try {
    return { prefix: rest.slice(0, slash), uri: decodeURIComponent(rest.slice(slash + 1)) };
  } catch {
    return null;
  }
}
