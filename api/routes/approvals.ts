// /api/v1/connectors/{id}/tasks/{taskId}/approval: a call an approval rule holds, as its approvers
// see it (the tool, its arguments opened for them alone, who asks), and their decision — an
// Update of the task's workflow, which checks again that the approver is named and the call still
// waits, and keeps who decided in its history. A caller the rule does not name is refused (403)
// when the connector is theirs to see, and told nothing exists (404) otherwise.
import type { Context } from 'koa';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { ToolApproval } from '../../contract/approvals';
import { isApprover } from '../../contract/approval-policy';
import { isConnectorId } from '../../contract/connector-id';
import { ProblemError } from '../../contract/problem';
import { toolTaskSecretPurpose } from '../../contract/tool-tasks';
import type { Logger } from '../../platform/logger';
import { secretContext, type SecretBox } from '../../platform/secret-box';
import { isWorkflowGone } from '../../platform/workflow-gone';
import type { Ciphertext } from '../../contract/ciphertext';
import { decideApprovalUpdate, toolTaskQuery, toolTaskWorkflowId, type ToolTaskView } from '../../workflows/tool-task-messages';
import { mayAccess } from '../../callers/caller';
import { callerOf } from '../caller-middleware';
import type { Handler } from '../router';
import { toProblemError } from '../temporal-errors';
import type { OwnerSource } from '../workflow-owners';

export interface ApprovalRouteDeps {
  temporal: Client;
  secrets: SecretBox;
  owners: OwnerSource;
  logger: Logger;
}

type ApprovalOperation = 'getToolApproval' | 'decideToolApproval';

const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NOT_FOUND = 'no such call waiting for approval';

export function approvalHandlers(deps: ApprovalRouteDeps): { [K in ApprovalOperation]: Handler<K> } {
  return {
    async getToolApproval(ctx) {
      ctx.body = presentApproval(await heldCall(ctx, deps), deps.secrets);
    },

    async decideToolApproval(ctx, input) {
      const { decision } = input.body();
      const view = await heldCall(ctx, deps);
      const caller = callerOf(ctx);
      const handle = deps.temporal.workflow.getHandle(toolTaskWorkflowId(view.connectorId, view.taskId));
      try {
        await handle.executeUpdate(decideApprovalUpdate, { args: [{ subject: caller.subject!, roles: [...(caller.roles ?? [])], approve: decision === 'approve' }] });
      } catch (err) {
        // The workflow's validator: decided meanwhile, expired or cancelled.
        if (err instanceof WorkflowUpdateFailedError) throw new ProblemError(409, err.cause?.message ?? 'this call is not waiting for approval');
        throw toProblemError(err);
      }
      deps.logger.info({ connectorId: view.connectorId, taskId: view.taskId, tool: view.tool, approver: caller.subject, decision }, 'a call held for approval was decided');
      ctx.body = presentApproval(await handle.query(toolTaskQuery), deps.secrets);
    },
  };
}

/** The task, if a rule held it and the caller is named by it; 403 for the connector's owner otherwise, else 404. */
async function heldCall(ctx: Context, deps: ApprovalRouteDeps): Promise<ToolTaskView & { approval: NonNullable<ToolTaskView['approval']> }> {
  const connectorId = String(ctx.params.id ?? '').toLowerCase();
  const taskId = String(ctx.params.taskId ?? '').toLowerCase();
  if (!isConnectorId(connectorId) || !TASK_ID.test(taskId)) throw new ProblemError(404, NOT_FOUND);
  let view: ToolTaskView | null = null;
  try {
    view = await deps.temporal.workflow.getHandle(toolTaskWorkflowId(connectorId, taskId)).query(toolTaskQuery);
  } catch (err) {
    if (!isWorkflowGone(err)) throw toProblemError(err);
  }
  const caller = callerOf(ctx);
  if (view && !view.gone && view.approval) {
    if (caller.subject !== null && isApprover(view.approval.approvers, caller)) return { ...view, approval: view.approval };
    const owner = await deps.owners.ownerOf(connectorId);
    if (owner && mayAccess(caller, owner.owner)) throw new ProblemError(403, 'you are not named as an approver of this call');
  }
  throw new ProblemError(404, NOT_FOUND);
}

function presentApproval(view: ToolTaskView, secrets: SecretBox): ToolApproval {
  const approval = view.approval!;
  const call = JSON.parse(secrets.open(approval.call as Ciphertext, secretContext(view.connectorId, toolTaskSecretPurpose(view.taskId)))) as { arguments?: Record<string, unknown> };
  return {
    task_id: view.taskId, connector_id: view.connectorId, tool: view.tool, arguments: call.arguments ?? {},
    requested_by: view.caller, requested_at: view.createdAt, state: approval.state, expires_at: approval.expiresAt,
    decided_by: approval.decidedBy, decided_at: approval.decidedAt, approvers: approval.approvers,
  };
}
