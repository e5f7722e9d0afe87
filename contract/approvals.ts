// Human approval as policy (issue 40, item 5): tools (globs) whose calls wait for a named caller
// to approve them. A call a rule names becomes a task the service owns, parked in input_required
// with a URL-mode elicitation that points at the console's approval page; an approver named by
// the rule approves or denies it there (a workflow Update, kept in history with who decided),
// and a call nobody decides within the rule's time ends failed. One shape for the configuration,
// the workflow, the proxy and the REST API.
import { z } from 'zod';
import { CallerPatternSchema, GlobSchema } from './caller-patterns';
import { globMatches } from './glob';

export const ApprovalRuleSchema = z.strictObject({
  tools: GlobSchema.meta({ description: 'Glob over the tool names the rule holds for approval' }),
  approvers: z.array(CallerPatternSchema).min(1).max(64).meta({ description: 'Who may approve: key:<subject>, oidc:<subject>, role:<role> (globs allowed)' }),
  timeout_seconds: z.number().int().min(1).max(30 * 86_400).optional().meta({ description: 'How long a call waits for a decision before it fails (default CONNECTOR__APPROVAL_TIMEOUT_SECONDS)' }),
});
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;
export const ApprovalRulesSchema = z.array(ApprovalRuleSchema).max(256);
/** The rules an owner sets on a connector or a toolset: they add to the operator's, which match first. */
export const OwnerApprovalRulesSchema = z.array(ApprovalRuleSchema).max(64);

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

export const APPROVAL_STATES = ['pending', 'approved', 'denied', 'expired'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

export const ApprovalDecisionSchema = z
  .strictObject({ decision: z.enum(['approve', 'deny']) })
  .meta({ id: 'ApprovalDecision' });

export const ToolApprovalSchema = z
  .object({
    task_id: z.string(),
    connector_id: z.string(),
    tool: z.string(),
    arguments: z.record(z.string(), z.unknown()).meta({ description: "The call's arguments, shown to its approvers only" }),
    requested_by: z.string().nullable().meta({ description: 'Who made the call (the caller subject)' }),
    requested_at: z.string(),
    state: z.enum(APPROVAL_STATES),
    expires_at: z.string(),
    decided_by: z.string().nullable(),
    decided_at: z.string().nullable(),
    approvers: z.array(z.string()),
  })
  .meta({ id: 'ToolApproval' });
export type ToolApproval = z.infer<typeof ToolApprovalSchema>;
