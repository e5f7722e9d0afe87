// Who may use a toolset and which of its tools (decisions.md, "Toolsets"): the owner and admins
// everything; anyone else what the access rules grant to a caller pattern that names them
// (`key:<subject>`, `oidc:<subject>`, `role:<role>`, globs allowed), over the prefixed names.
// A caller no rule names is not told the toolset exists (404).
//
// A prefixed name is `<prefix>__<name>`, read at its first `__`: prefixes never contain `__` nor
// end with `_` (contract/toolset-record.ts), and a member's own name that contains `__` is never
// served, so every name reads one way only. A grant pattern with `__` is matched by member and by
// tool: its part before the first `__` over the prefix, the rest over the member's own name.
//
// Whether a member's token may be used is decided from the connector's workflow (the route's
// owner), never from a database record: the toolset's owner must be the member's owner, or the
// caller one who may use the member anyway (its owner, an admin).
import { mayAccess, type Caller } from '../../callers/caller';
import { anyGlobMatches, globMatches } from '../../contract/glob';
import { callerNamed } from '../../contract/approval-policy';
import { TOOL_SEPARATOR, type ToolsetMember, type ToolsetRecord } from '../../contract/toolset-record';
import type { ConnectedRoute, Route } from '../route';

export type Grant = { all: true } | { all: false; patterns: readonly string[] };

/** What the caller may use of the toolset; null when nothing (the toolset is then unknown to it). */
export function grantOf(caller: Caller, toolset: ToolsetRecord): Grant | null {
  if (mayAccess(caller, toolset.created_by)) return { all: true };
  const patterns = toolset.access.filter((rule) => rule.callers.some((p) => callerNamed(p, caller))).flatMap((rule) => rule.allow);
  return patterns.length > 0 ? { all: false, patterns } : null;
}

/** A prefixed name's member and the member's own name; null when it names no member of the toolset. */
export function memberNamed(toolset: ToolsetRecord, name: string): { member: ToolsetMember; own: string } | null {
  const at = name.indexOf(TOOL_SEPARATOR);
  if (at <= 0) return null;
  const own = name.slice(at + TOOL_SEPARATOR.length);
  if (!servable(own)) return null;
  const member = toolset.members.find((m) => m.prefix === name.slice(0, at));
  return member ? { member, own } : null;
}

/** A member's own name the toolset serves: not empty, and without `__` (it would read two ways). */
export const servable = (own: string): boolean => own.length > 0 && !own.includes(TOOL_SEPARATOR);

export const prefixed = (member: ToolsetMember, own: string): string => `${member.prefix}${TOOL_SEPARATOR}${own}`;

/** Whether the grant covers the member's own name `own`. */
export function grants(grant: Grant, member: ToolsetMember, own: string): boolean {
  return grant.all || grant.patterns.some((pattern) => patternGrants(pattern, member.prefix, own));
}

function patternGrants(pattern: string, prefix: string, own: string): boolean {
  const at = pattern.indexOf(TOOL_SEPARATOR);
  if (at === -1) return globMatches(pattern, `${prefix}${TOOL_SEPARATOR}${own}`);
  return globMatches(pattern.slice(0, at), prefix) && globMatches(pattern.slice(at + TOOL_SEPARATOR.length), own);
}

/** The member's own filter, over its own tool names: allowed and not denied. */
export const memberOffers = (member: ToolsetMember, ownName: string): boolean =>
  anyGlobMatches(member.tools.allow, ownName) && !anyGlobMatches(member.tools.deny, ownName);

/** Whether this toolset may use the member's token for this caller, judged from the workflow's route. */
export function mayUse(toolset: ToolsetRecord, caller: Caller, route: ConnectedRoute): boolean {
  const owner = route.owner ?? null;
  return owner === toolset.created_by || mayAccess(caller, owner);
}

/** Whether the caller may be shown how to authorize the member (its owner and admins only). */
export const mayAuthorize = (caller: Caller, route: Route): boolean => route.kind !== 'not_found' && mayAccess(caller, route.owner ?? null);
