// The Tasks extension (SEP-2663) on a toolset's MCP path, for 2026-07-28 clients that declare it:
// a tools/call becomes the member's task — relayed to a member whose server runs tasks itself, or
// owned by the service on the member's connector (gateway-tasks.ts) for one without — and
// tasks/get, tasks/update and tasks/cancel reach that member with its own task id (the service
// answers for a call it holds for approval, toolset-approvals.ts, whatever the member's server).
// Task ids name the member and are bound to the caller (task-ids.ts).
import type { ServerResponse } from 'node:http';
import { TASKS_EXTENSION, TASK_RPC, declaresTasks, missingTasksCapability } from '../../contract/tool-tasks';
import type { ToolsetMember } from '../../contract/toolset-record';
import type { ConnectedRoute } from '../route';
import { TaskRpcFailure, type TaskPayload } from '../tasks/gateway-tasks';
import { mayUse } from './access';
import { relayToMember } from './member-relay';
import { META, errorMessage, isObject, paramsOf, type RpcId, type RpcMessage } from './rpc';
import { openTaskId, toolsetTaskId } from './task-ids';
import { sendMessage } from './toolset-answers';
import { serverInfoOf, type ToolsetContext } from './toolset-context';

type Request = RpcMessage & { id: RpcId; method: string };

const UNKNOWN_TASK = new TaskRpcFailure(TASK_RPC.invalidParams, 'Failed to retrieve task: Task not found');

/** The extensions the toolset's server/discover lists: the Tasks extension, when this replica can run tasks. */
export function taskExtension(ctx: ToolsetContext): Record<string, unknown> | undefined {
  return ctx.deps.tasks ? { [TASKS_EXTENSION]: {} } : undefined;
}

/**
 * A tools/call for `member` (its name already the member's own) as a task, when the client declared
 * the extension and the member can have one. False: not a task; the caller relays it as a plain call.
 */
export async function callAsMemberTask(ctx: ToolsetContext, res: ServerResponse, member: ToolsetMember, forwarded: Request): Promise<boolean> {
  const tasks = ctx.deps.tasks;
  if (!tasks || ctx.era !== 'modern' || !declaresTasks(forwarded.params)) return false;
  const route = await usableRoute(ctx, member);
  if (!route) return false; // the plain relay tells the caller why the member cannot answer
  const kind = await tasks.gateway.supportOf(member.connector_id, route);
  if (kind === 'native') {
    await relayToMember(ctx, res, member, forwarded, (result) => withTaskId(result, (id) => toolsetTaskId(ctx, member, id)));
    return true;
  }
  if (kind !== 'plain') return false;
  const payload = await answered(tasks.gateway.callAsTask({ connectorId: member.connector_id, route, caller: ctx.caller, toolsetId: ctx.toolset.id }, paramsOf(forwarded)));
  if (payload === null) return false;
  sendPayload(ctx, res, forwarded.id, payload, (id) => toolsetTaskId(ctx, member, id));
  return true;
}

/** tasks/get, tasks/update or tasks/cancel on the toolset: the member the id names answers, with its own id. */
export async function memberTaskRequest(ctx: ToolsetContext, res: ServerResponse, message: Request): Promise<void> {
  const tasks = ctx.deps.tasks;
  if (!tasks || ctx.era !== 'modern') return sendMessage(res, ctx.era === 'modern' ? 404 : 200, errorMessage(message.id, { code: -32601, message: `Method not found: ${message.method}` }));
  const params = paramsOf(message);
  if (!declaresTasks(params)) return sendPayload(ctx, res, message.id, new TaskRpcFailure(TASK_RPC.missingCapability, 'Missing required client capability', missingTasksCapability()).payload);
  const clientId = String(params.taskId ?? '');
  const opened = openTaskId(ctx, clientId);
  const route = opened && (await usableRoute(ctx, opened.member));
  if (!opened || !route) return sendPayload(ctx, res, message.id, UNKNOWN_TASK.payload);
  const forwarded = { ...message, params: { ...params, taskId: opened.memberTaskId } };
  // A call held for approval is the service's task, whatever the member's server can do itself.
  const mayHold = tasks.gateway.holdsTools(route) || Boolean(ctx.toolset.approval_rules?.length);
  const held = mayHold && (await tasks.gateway.ownsHeldTask(opened.member.connector_id, opened.memberTaskId));
  const kind = held ? 'plain' : await tasks.gateway.supportOf(opened.member.connector_id, route);
  if (kind === 'native') return relayToMember(ctx, res, opened.member, forwarded, (result) => withTaskId(result, () => clientId));
  if (kind !== 'plain') return sendPayload(ctx, res, message.id, UNKNOWN_TASK.payload);
  const payload = await answered(tasks.gateway.taskMethod({ connectorId: opened.member.connector_id, route, caller: ctx.caller }, message.method, forwarded.params));
  sendPayload(ctx, res, message.id, payload ?? UNKNOWN_TASK.payload, () => clientId);
}

/** The member's route, when it is connected and this caller may use it through the toolset. */
async function usableRoute(ctx: ToolsetContext, member: ToolsetMember): Promise<ConnectedRoute | null> {
  const route = await ctx.deps.routes.get(member.connector_id);
  return route.kind === 'connected' && mayUse(ctx.toolset, ctx.caller, route) ? route : null;
}

/** A gateway answer, with the refusals it throws as the JSON-RPC errors they stand for. */
async function answered(pending: Promise<TaskPayload | null>): Promise<TaskPayload | null> {
  try {
    return await pending;
  } catch (err) {
    if (err instanceof TaskRpcFailure) return err.payload;
    throw err;
  }
}

export function sendPayload(ctx: ToolsetContext, res: ServerResponse, id: RpcId, payload: TaskPayload, mapId: (memberTaskId: string) => string = (x) => x): void {
  if ('error' in payload) return sendMessage(res, 200, errorMessage(id, payload.error as RpcMessage['error'] & object));
  const result = withTaskId(isObject(payload.result) ? payload.result : {}, mapId);
  const meta = isObject(result._meta) ? result._meta : {};
  sendMessage(res, 200, { jsonrpc: '2.0', id, result: { ...result, _meta: { ...meta, [META.serverInfo]: serverInfoOf(ctx.toolset) } } });
}

/** A result naming a task (CreateTaskResult, DetailedTask) with the id the caller knows it by. */
function withTaskId(result: Record<string, unknown>, mapId: (memberTaskId: string) => string): Record<string, unknown> {
  return typeof result.taskId === 'string' ? { ...result, taskId: mapId(result.taskId) } : result;
}
