// Human approval as policy (issue 40, item 5): tools (globs) whose calls wait for a named caller
// to approve them. A call a rule names becomes a task the service owns, parked in input_required
// with a URL-mode elicitation that points at the console's approval page; an approver named by
// the rule approves or denies it there (a workflow Update, kept in history with who decided),
// and a call nobody decides within the rule's time ends failed. One shape for the configuration,
// the workflow, the proxy and the REST API. The schemas are here; what decides a call
// (approval-policy.ts) is apart from them, so that the workflows evaluate no schema library.
import { z } from 'zod';
import { CallerPatternSchema, GlobSchema } from './caller-patterns';

export const ApprovalRuleSchema = z.strictObject({
  tools: GlobSchema.meta({ description: 'Glob over the tool names the rule holds for approval' }),
  approvers: z.array(CallerPatternSchema).min(1).max(64).meta({ description: 'Who may approve: key:<subject>, oidc:<subject>, role:<role> (globs allowed)' }),
  timeout_seconds: z.number().int().min(1).max(30 * 86_400).optional().meta({ description: 'How long a call waits for a decision before it fails (default CONNECTOR__APPROVAL_TIMEOUT_SECONDS)' }),
});
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;
export const ApprovalRulesSchema = z.array(ApprovalRuleSchema).max(256);
/** The rules an owner sets on a connector or a toolset: they add to the operator's, which match first. */
export const OwnerApprovalRulesSchema = z.array(ApprovalRuleSchema).max(64);

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
