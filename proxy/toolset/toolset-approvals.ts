// A call through a toolset of a tool an approval rule holds: the operator's rules and the member
// connector's own (over the member's own tool names), then the toolset's (over its prefixed
// names, `<prefix>__<tool>`); first match wins. The call becomes a task the service owns on the
// member's connector (gateway-tasks.ts), waiting for an approver named by the rule: a client that
// declared the Tasks extension gets the task (its id the toolset's, as for any member task), any
// other the URL-mode elicitation (-32042) that points at the approval page. The call is never
// relayed unapproved; without the service's tasks it is refused.
import type { ServerResponse } from 'node:http';
import { heldBy } from '../../contract/approval-policy';
import type { ToolsetMember } from '../../contract/toolset-record';
import { TaskRpcFailure, type TaskPayload } from '../tasks/gateway-tasks';
import { mayUse } from './access';
import { errorMessage, paramsOf, type RpcId, type RpcMessage } from './rpc';
import { sendMessage } from './toolset-answers';
import type { ToolsetContext } from './toolset-context';
import { sendPayload } from './toolset-tasks';
import { toolsetTaskId } from './task-ids';

type Request = RpcMessage & { id: RpcId; method: string };

/** Answers a held call and says true; false when no rule holds it (the caller relays it as usual). */
export async function callHeld(ctx: ToolsetContext, res: ServerResponse, member: ToolsetMember, forwarded: Request, named: string): Promise<boolean> {
  const own = String(paramsOf(forwarded).name);
  const route = await ctx.deps.routes.get(member.connector_id);
  const connected = route.kind === 'connected' && mayUse(ctx.toolset, ctx.caller, route) ? route : null;
  const toolsetRules = { rules: ctx.toolset.approval_rules, tool: named };
  const gateway = ctx.deps.tasks?.gateway;
  if (!gateway || !connected) {
    // Nothing can hold the call here: a tool any rule names is refused, never made unapproved.
    const connectorRules = route.kind === 'connected' ? route.approvals : undefined;
    if (!heldBy([{ rules: ctx.deps.approvals, tool: own }, { rules: connectorRules, tool: own }, toolsetRules], 0)) return false;
    sendMessage(res, 200, errorMessage(forwarded.id, { code: -32603, message: `${named} needs an approval, which cannot be held for this call now: try again shortly` }));
    return true;
  }
  const rule = gateway.ruleFor(connected, own, toolsetRules);
  if (!rule) return false;
  // A 2025 session cannot have a task: its client is sent to the approval page instead.
  const params = ctx.era === 'modern' ? paramsOf(forwarded) : withoutMeta(paramsOf(forwarded));
  let payload: TaskPayload;
  try {
    payload = await gateway.held({ connectorId: member.connector_id, route: connected, caller: ctx.caller, toolsetId: ctx.toolset.id }, params, rule);
  } catch (err) {
    if (!(err instanceof TaskRpcFailure)) throw err;
    payload = err.payload;
  }
  sendPayload(ctx, res, forwarded.id, payload, (id) => toolsetTaskId(ctx, member, id));
  return true;
}

function withoutMeta(params: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _dropped, ...rest } = params;
  return rest;
}
