// Scope selection (MCP 2025-11-25, "Scope Selection Strategy"): the challenge's scope is
// authoritative; without it, every scope the protected resource lists; without those, no scope
// parameter at all (the authorization server's default applies). `offline_access` is added
// where the authorization server lists it, so that a refresh token is issued; it is not added
// to an otherwise empty request, which would replace the server's default scope with it alone.

export interface ScopeSources {
  challengeScope?: string | null;
  resourceScopes?: readonly string[] | null;
  authorizationServerScopes?: readonly string[] | null;
}

/** The `scope` parameter to request, or null to omit it. */
export function selectScope(sources: ScopeSources): string | null {
  const requested = splitScope(sources.challengeScope) ?? (sources.resourceScopes?.length ? [...sources.resourceScopes] : null);
  if (!requested) return null;
  if (sources.authorizationServerScopes?.includes('offline_access')) requested.push('offline_access');
  return [...new Set(requested)].join(' ');
}

function splitScope(scope: string | null | undefined): string[] | null {
  const parts = scope?.split(/\s+/).filter(Boolean) ?? [];
  return parts.length ? parts : null;
}
