// Who may use a toolset and which of its tools (decisions.md, "Toolsets"): the owner and admins
// everything; anyone else what the access rules grant to a caller pattern that names them
// (`key:<subject>`, `oidc:<subject>`, `role:<role>`, globs allowed), over the prefixed names.
// A caller no rule names is not told the toolset exists (404).
import { mayAccess, type Caller } from '../../callers/caller';
import { anyGlobMatches, globMatches } from '../../contract/glob';
import type { ToolsetMember, ToolsetRecord } from '../../contract/toolset-record';

export type Grant = { all: true } | { all: false; patterns: readonly string[] };

function callerMatches(pattern: string, caller: Caller): boolean {
  if (pattern.startsWith('role:')) return (caller.roles ?? []).some((role) => globMatches(pattern.slice(5), role));
  return caller.subject !== null && globMatches(pattern, caller.subject);
}

/** What the caller may use of the toolset; null when nothing (the toolset is then unknown to it). */
export function grantOf(caller: Caller, toolset: ToolsetRecord): Grant | null {
  if (mayAccess(caller, toolset.created_by)) return { all: true };
  const patterns = toolset.access.filter((rule) => rule.callers.some((p) => callerMatches(p, caller))).flatMap((rule) => rule.allow);
  return patterns.length > 0 ? { all: false, patterns } : null;
}

export const grants = (grant: Grant, prefixedName: string): boolean => grant.all || anyGlobMatches(grant.patterns, prefixedName);

/** The member's own filter, over its own tool names: allowed and not denied. */
export const memberOffers = (member: ToolsetMember, ownName: string): boolean =>
  anyGlobMatches(member.tools.allow, ownName) && !anyGlobMatches(member.tools.deny, ownName);
