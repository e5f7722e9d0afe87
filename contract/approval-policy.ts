// Human approval as policy, decided: which rule holds a call, who may approve it, and how the
// caller's user is sent to decide. Free of the schemas (approvals.ts): the tool task workflow
// runs it, and every workflow evaluates in its own module scope what the bundle imports, so a
// schema library here would cost each cached workflow its own copy (about 1 MB).
import type { ApprovalRule } from './approvals';
import { globMatches } from './glob';

/** An approval rule with its wait in milliseconds, the default filled in. */
export type TimedApprovalRule = ApprovalRule & { timeoutMs: number };

/** Rules, and the name the call's tool has where they were written (a toolset's rules use its prefixed names). */
export interface RuleSource {
  rules: readonly (ApprovalRule & { timeoutMs?: number })[] | undefined;
  tool: string;
}

/**
 * The rule that holds a call, from its sources in order: the operator's first (an owner's rule
 * cannot loosen them), then the connector's own, then those of the toolset the call came
 * through. First match wins; a rule without a timeout waits `defaultTimeoutMs`.
 */
export function heldBy(sources: readonly RuleSource[], defaultTimeoutMs: number): TimedApprovalRule | undefined {
  for (const { rules, tool } of sources) {
    const found = rules && approvalRuleOf(rules, tool);
    if (found) return { ...found, timeoutMs: found.timeoutMs ?? (found.timeout_seconds ? found.timeout_seconds * 1000 : defaultTimeoutMs) };
  }
  return undefined;
}
/** The first rule that names the tool: it decides who approves the call and how long it may wait. */
export function approvalRuleOf<R extends ApprovalRule>(rules: readonly R[], tool: string): R | undefined {
  return rules.find((rule) => globMatches(rule.tools, tool));
}

/** Who a caller is, as a caller pattern sees it. */
export interface NamedCaller {
  subject: string | null;
  roles?: readonly string[];
}

/** Whether `pattern` (key:…, oidc:…, role:…; globs allowed) names the caller. */
export function callerNamed(pattern: string, caller: NamedCaller): boolean {
  if (pattern.startsWith('role:')) return (caller.roles ?? []).some((role) => globMatches(pattern.slice(5), role));
  return caller.subject !== null && globMatches(pattern, caller.subject);
}

export const isApprover = (approvers: readonly string[], caller: NamedCaller): boolean => approvers.some((p) => callerNamed(p, caller));

/** SEP-1036: the request cannot go on until the user has visited a URL (a URL-mode elicitation). */
export const URL_ELICITATION_REQUIRED = -32042;

/** The key the approval's input request has in the task's inputRequests. */
export const APPROVAL_INPUT_KEY = 'approval';

/** Where an approver decides: the console's page for the task. */
export const approvalPageUrl = (baseUrl: string, connectorId: string, taskId: string): string =>
  `${baseUrl}/#/connectors/${encodeURIComponent(connectorId)}/tasks/${encodeURIComponent(taskId)}/approval`;

/** The URL-mode elicitation (SEP-1036) that sends the caller's user to the approval page. */
export function approvalElicitation(url: string, taskId: string, tool: string) {
  return { mode: 'url' as const, elicitationId: `approval-${taskId}`, url, message: `Calling ${tool} needs the approval of a person named for it: open this page, or ask them to.` };
}
