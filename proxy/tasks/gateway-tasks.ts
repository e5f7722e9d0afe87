// Tasks the service owns (the Tasks extension, SEP-2663) for connectors whose MCP server has no
// task support of its own: a declaring client's tools/call becomes a task workflow
// (workflows/tool-task.ts), started here by whichever replica took the call, and tasks/get,
// tasks/update and tasks/cancel are answered from that workflow by any replica. A call whose
// first round ends within the sync window is answered as a plain call would be (the extension
// lets the server choose); a longer one is answered with the task. The server's server/discover
// answer gains the extension, since the connector's MCP path now offers it.
//
// A tool an approval rule names (the operator's CONNECTOR__APPROVAL_TOOLS first, then the
// connector's own approval_rules, which its route carries) always runs as such a task, for a
// server with task support too: it waits in input_required, with a URL-mode elicitation to the
// console's approval page, until an approver named by the rule decides. A client without the
// extension is answered -32042 (URL elicitation required) with that page; the call still waits
// there, and runs once approved, its outcome kept as a task's (listed with the connector's tasks).
//
// A task is its caller's: another caller of the same connector asking for it is told it does
// not exist, as for any unknown id.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Caller } from '../../callers/caller';
import {
  REMOVED_TASK_METHODS, TASKS_EXTENSION, TASK_METHODS, TASK_RPC, declaresTasks, missingTasksCapability, taskSupportOf,
  toolTaskSecretPurpose, type TaskSupport,
} from '../../contract/tool-tasks';
import type { Logger } from '../../platform/logger';
import { secretContext, type SecretBox } from '../../platform/secret-box';
import { isWorkflowGone } from '../../platform/workflow-gone';
import type { Ciphertext } from '../../contract/ciphertext';
import {
  TOOL_TASK_WORKFLOW, answerUpdate, cancelTaskUpdate, firstRoundUpdate, releaseSignal, toolTaskQuery, toolTaskWorkflowId,
  type ApprovalInput, type ToolTaskInput, type ToolTaskView,
} from '../../workflows/tool-task-messages';
import type { ApprovalRule } from '../../contract/approvals';
import {
  APPROVAL_INPUT_KEY, URL_ELICITATION_REQUIRED, approvalElicitation, approvalPageUrl, heldBy, type RuleSource, type TimedApprovalRule,
} from '../../contract/approval-policy';
import type { ConnectedRoute } from '../route';
import type { UpstreamClient } from '../upstream-client';
import { createTaskResult, detailedTask, directAnswer } from './task-wire';
import { answeredWithTask, relayedTaskCall } from '../call-observer';
import { UpstreamTaskSupport, messageOf, readText, type TaskSupportKind } from './upstream-task-support';

export interface GatewayTaskSettings {
  /** Operator marks: tool-name globs and the task support they give (first match wins). */
  marks: Array<{ tools: string; support: TaskSupport }>;
  /** A call whose first round ends within this is answered without a task. */
  syncWindowMs: number;
  /** How long an outcome is kept: the operator's limit, and what a task gets unless its client asks for less. */
  ttlMs: number;
  pollIntervalMs: number;
  /** Tools the operator holds for approval, first match wins, each with its wait. */
  approvals: Array<ApprovalRule & { timeoutMs: number }>;
  /** The wait of a call an owner's rule holds, when the rule names none (default three days). */
  approvalTimeoutMs?: number;
  /** The service's public base URL: the approval page is under it. */
  baseUrl: string;
}

export interface GatewayTasksOptions {
  temporal: Client;
  taskQueue: string;
  secrets: SecretBox;
  upstream: UpstreamClient;
  logger: Logger;
  settings: GatewayTaskSettings;
}

/** Whose task, on which connector: the connector path's caller, or a toolset's caller of a member. */
export interface TaskCaller {
  connectorId: string;
  route: ConnectedRoute;
  caller: Caller;
  /** The toolset whose path the call came by (absent: the connector's own). */
  toolsetId?: string;
}

/** One POST whose body was read whole: what the tasks surface needs of it. */
export interface TaskRequest extends TaskCaller {
  res: ServerResponse;
  body: Buffer;
  /** The body's method, as the header check read it: the body is parsed again only for the methods here. */
  method: string | null;
  /** Hands the request back to the relay, unanswered. */
  relay(): void;
}

interface Rpc {
  id?: string | number | null;
  method: string;
  params?: Record<string, any>;
}

const IDEMPOTENT_LIST_MS = 60_000;
const DEFAULT_APPROVAL_TIMEOUT_MS = 3 * 86_400_000;
const CLAIMED = new Set(['tools/call', 'server/discover', ...TASK_METHODS, ...REMOVED_TASK_METHODS]);

/** What a task request is answered with instead, as a JSON-RPC error. */
export class TaskRpcFailure extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }

  get payload(): TaskPayload {
    return { error: { code: this.code, message: this.message, ...(this.data ? { data: this.data } : {}) } };
  }
}

/** A JSON-RPC answer's result or error, for the caller's id. */
export type TaskPayload = { result: unknown } | { error: unknown };

export class GatewayTasks {
  private readonly support: UpstreamTaskSupport;
  private readonly idempotentTools = new Map<string, { tools: Set<string>; at: number }>();

  constructor(private readonly o: GatewayTasksOptions) {
    this.support = new UpstreamTaskSupport(o.upstream);
  }

  /** Whether the request is the tasks surface's to look at; when it is, it is answered or relayed. */
  take(request: TaskRequest): boolean {
    if (request.method === null || !CLAIMED.has(request.method)) return false;
    const rpc = rpcOf(request.body);
    if (!rpc || !CLAIMED.has(rpc.method)) return false;
    this.serve(request, rpc).catch((err: unknown) => this.fail(request, rpc, err));
    return true;
  }

  /** Whether any tool of the connector is held for approval: requests the relay would stream unread are then read first. */
  holdsTools(route: ConnectedRoute): boolean {
    return this.o.settings.approvals.length > 0 || (route.approvals?.length ?? 0) > 0;
  }

  /** Whether calls of the connector's `tool` wait for an approver. */
  holds(route: ConnectedRoute, tool: string): boolean {
    return this.ruleFor(route, tool) !== undefined;
  }

  /**
   * The rule that holds a call of the connector's `tool`: the operator's rules, then the
   * connector's, then `more` (a toolset's, over its own names for the tool). First match wins.
   */
  ruleFor(route: ConnectedRoute, tool: string, ...more: RuleSource[]): TimedApprovalRule | undefined {
    const sources = [{ rules: this.o.settings.approvals, tool }, { rules: route.approvals, tool }, ...more];
    return heldBy(sources, this.o.settings.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS);
  }

  /** Whether a batch (2025-03-26) calls a held tool: it is refused whole, never split. */
  batchCallsHeld(route: ConnectedRoute, body: Buffer): boolean {
    let value: unknown;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      return false;
    }
    return Array.isArray(value) && value.some((message: Rpc | null) => message?.method === 'tools/call'
      && this.holds(route, String(message.params?.name ?? '')));
  }

  forget(connectorId: string): void {
    this.support.forget(connectorId);
    this.idempotentTools.delete(connectorId);
  }

  private async serve(request: TaskRequest, rpc: Rpc): Promise<void> {
    if (rpc.method === 'server/discover') return this.discover(request, rpc);
    const kind = await this.supportOf(request.connectorId, request.route);
    const rule = rpc.method === 'tools/call' ? this.ruleFor(request.route, String(rpc.params?.name ?? '')) : undefined;
    if (rule) return send(request.res, rpc, await this.held(request, rpc.params ?? {}, rule));
    if (kind !== 'plain' && !(await this.asksHeldTask(request, rpc))) {
      if (rpc.method === 'tools/call' && declaresTasks(rpc.params)) relayedTaskCall(request.res);
      return request.relay();
    }
    const payload = rpc.method === 'tools/call' ? await this.callAsTask(request, rpc.params ?? {}) : await this.taskMethod(request, rpc.method, rpc.params);
    if (payload === null) return request.relay();
    send(request.res, rpc, payload);
  }

  /** Whether the connector's server runs tasks itself ('native'), needs the service's ('plain'), or cannot have them. */
  supportOf(connectorId: string, route: ConnectedRoute): Promise<TaskSupportKind> {
    return this.support.of(connectorId, route);
  }

  /**
   * A tools/call of a server without task support: the task's CreateTaskResult, the answer of a
   * call that ended within the sync window, or null when it is not to be a task (relay it).
   * Throws TaskRpcFailure for what the caller is to be told instead.
   */
  async callAsTask(request: TaskCaller, params: Record<string, any>): Promise<TaskPayload | null> {
    const tool = String(params.name ?? '');
    const support = taskSupportOf(this.o.settings.marks, tool);
    const declared = declaresTasks(params);
    if (!declared && support === 'required') throw new TaskRpcFailure(TASK_RPC.missingCapability, `Missing required client capability: ${tool} runs only as a task`, missingTasksCapability());
    if (!declared || support === 'forbidden') return null;
    const view = await this.start(request, tool, params);
    if (view.rounds === 0 && view.status === 'working') return { result: createTaskResult(view) };
    // The first round ended within the window: answered as the plain call it was, no task kept.
    await this.handle(view).signal(releaseSignal);
    return directAnswer(view, this.opener(view));
  }

  /** tasks/get, tasks/update or tasks/cancel of a task the service owns (and the removed methods' refusal). */
  async taskMethod(request: TaskCaller, method: string, params: Record<string, any> | undefined): Promise<TaskPayload> {
    if (REMOVED_TASK_METHODS.has(method)) throw new TaskRpcFailure(TASK_RPC.methodNotFound, `Method not found: ${method} (removed by the Tasks extension's second version)`);
    if (!declaresTasks(params)) throw new TaskRpcFailure(TASK_RPC.missingCapability, 'Missing required client capability', missingTasksCapability());
    const view = await this.taskOf(request, String(params?.taskId ?? ''));
    if (method === 'tasks/get') return { result: detailedTask(view, this.opener(view)) };
    if (method === 'tasks/cancel') await this.handle(view).executeUpdate(cancelTaskUpdate, { args: ['cancelled by its client'] });
    else await this.answer(view, params?.inputResponses);
    return { result: { resultType: 'complete' } };
  }

  /** The server's discover answer, with the extension added when the service runs its tasks. */
  private async discover(request: TaskRequest, rpc: Rpc): Promise<void> {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' };
    const { answer } = await this.o.upstream.send(request.connectorId, request.route, { method: 'POST', headers, body: request.body });
    const message = messageOf(answer.headers['content-type'], await readText(answer));
    if (!message) throw new TaskRpcFailure(TASK_RPC.internal, `the MCP server answered server/discover with HTTP ${answer.statusCode} and no JSON-RPC answer`);
    if (this.support.learn(request.connectorId, message) === 'plain') {
      const result = message.result as { capabilities?: { extensions?: Record<string, unknown> } };
      result.capabilities = { ...result.capabilities, extensions: { ...result.capabilities?.extensions, [TASKS_EXTENSION]: {} } };
    }
    request.res.writeHead(answer.statusCode ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(message));
  }

  /**
   * A call an approval rule holds: a task waiting for an approver. The service makes the call
   * itself in 2026-07-28 terms, so a server at another revision cannot be held (refused, never relayed).
   */
  async held(request: TaskCaller, params: Record<string, any>, rule: TimedApprovalRule): Promise<TaskPayload> {
    const tool = String(params.name ?? '');
    if ((await this.supportOf(request.connectorId, request.route)) === 'other') throw new TaskRpcFailure(TASK_RPC.internal, `${tool} needs an approval, which the service can hold only for MCP servers at revision 2026-07-28: the call was not made`);
    let url = '';
    const view = await this.start(request, tool, params, (taskId, seal): ApprovalInput => {
      url = approvalPageUrl(this.o.settings.baseUrl, request.connectorId, taskId);
      const asked = { method: 'elicitation/create', params: approvalElicitation(url, taskId, tool) };
      return { approvers: rule.approvers, timeoutMs: rule.timeoutMs, request: seal({ inputRequests: { [APPROVAL_INPUT_KEY]: asked } }) };
    });
    if (declaresTasks(params)) return { result: createTaskResult(view) };
    throw new TaskRpcFailure(URL_ELICITATION_REQUIRED, `${tool} needs an approval: open the page to ask for it; the call runs once an approver approves it`, {
      elicitations: [approvalElicitation(url, view.taskId, tool)],
    });
  }

  private async start(request: TaskCaller, tool: string, params: Record<string, any>, approval?: (taskId: string, seal: (value: unknown) => Ciphertext) => ApprovalInput): Promise<ToolTaskView> {
    const taskId = randomUUID();
    const { _meta: _dropped, task: requested, ...call } = params;
    const context = secretContext(request.connectorId, toolTaskSecretPurpose(taskId));
    const seal = (value: unknown) => this.o.secrets.seal(JSON.stringify(value), context);
    const input: ToolTaskInput = {
      taskId, connectorId: request.connectorId, caller: request.caller.subject, tool, ...(request.toolsetId ? { toolsetId: request.toolsetId } : {}),
      call: seal(call),
      idempotent: await this.idempotent(request, tool),
      ttlMs: ttlFor(requested, this.o.settings.ttlMs), pollIntervalMs: this.o.settings.pollIntervalMs,
      ...(approval ? { approval: approval(taskId, seal) } : {}),
    };
    // One request starts the workflow and waits for its first round: the start is durable before any answer.
    const startWorkflowOperation = new WithStartWorkflowOperation(TOOL_TASK_WORKFLOW, {
      taskQueue: this.o.taskQueue, workflowId: toolTaskWorkflowId(request.connectorId, taskId), args: [input], workflowIdConflictPolicy: 'FAIL',
    });
    return this.o.temporal.workflow.executeUpdateWithStart(firstRoundUpdate, { args: [this.o.settings.syncWindowMs], startWorkflowOperation });
  }

  /** Whether the server's tools/list says the tool is idempotent (unknown: it is not); read once a minute per connector. */
  private async idempotent(request: TaskCaller, tool: string): Promise<boolean> {
    const known = this.idempotentTools.get(request.connectorId);
    if (known && Date.now() - known.at < IDEMPOTENT_LIST_MS) return known.tools.has(tool);
    const tools = await this.idempotentToolsOf(request);
    this.idempotentTools.set(request.connectorId, { tools, at: Date.now() });
    return tools.has(tool);
  }

  private async idempotentToolsOf(request: TaskCaller): Promise<Set<string>> {
    return (await this.o.upstream.send(request.connectorId, request.route, {
      method: 'POST', body: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'task-tools', method: 'tools/list', params: {} })),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    }).then(async ({ answer }) => {
      const tools = (messageOf(answer.headers['content-type'], await readText(answer))?.result as { tools?: Array<{ name?: string; annotations?: { idempotentHint?: boolean } }> } | undefined)?.tools;
      return new Set((tools ?? []).filter((t) => t.annotations?.idempotentHint === true).map((t) => String(t.name)));
    }, () => new Set<string>()));
  }

  /** A tasks/* request about a held call, on a server that runs (or knows nothing of) tasks itself: the service's to answer. */
  private async asksHeldTask(request: TaskRequest, rpc: Rpc): Promise<boolean> {
    if (!TASK_METHODS.has(rpc.method) || !this.holdsTools(request.route)) return false;
    return this.ownsHeldTask(request.connectorId, String(rpc.params?.taskId ?? ''));
  }

  /** Whether the task is a call the service holds (or held) for approval: the service answers for it, whatever the server's task support. */
  async ownsHeldTask(connectorId: string, taskId: string): Promise<boolean> {
    return Boolean((await this.viewOf(connectorId, taskId))?.approval);
  }

  private async viewOf(connectorId: string, taskId: string): Promise<ToolTaskView | null> {
    try {
      return await this.o.temporal.workflow.getHandle(toolTaskWorkflowId(connectorId, taskId)).query(toolTaskQuery);
    } catch (err) {
      if (!isWorkflowGone(err)) throw err;
      return null;
    }
  }

  private async taskOf(request: TaskCaller, taskId: string): Promise<ToolTaskView> {
    const view = await this.viewOf(request.connectorId, taskId);
    // Another caller's task is answered exactly as one that does not exist.
    if (!view || view.gone || view.caller !== request.caller.subject) throw new TaskRpcFailure(TASK_RPC.invalidParams, 'Failed to retrieve task: Task not found');
    return view;
  }

  private async answer(view: ToolTaskView, responses: unknown): Promise<void> {
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) throw new TaskRpcFailure(TASK_RPC.invalidParams, 'inputResponses must be an object');
    const keys = Object.keys(responses);
    const sealed = this.o.secrets.seal(JSON.stringify(responses), secretContext(view.connectorId, toolTaskSecretPurpose(view.taskId)));
    await this.handle(view).executeUpdate(answerUpdate, { args: [{ sealed, keys }] });
  }

  private handle(view: Pick<ToolTaskView, 'connectorId' | 'taskId'>) {
    return this.o.temporal.workflow.getHandle(toolTaskWorkflowId(view.connectorId, view.taskId));
  }

  private opener(view: ToolTaskView) {
    const context = secretContext(view.connectorId, toolTaskSecretPurpose(view.taskId));
    return (sealed: string) => JSON.parse(this.o.secrets.open(sealed as Ciphertext, context)) as Record<string, unknown>;
  }

  private fail(request: TaskRequest, rpc: Rpc, err: unknown): void {
    if (request.res.headersSent) return;
    if (err instanceof TaskRpcFailure) return send(request.res, rpc, err.payload);
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) this.o.logger.error({ err, connectorId: request.connectorId, method: rpc.method }, 'task request failed');
    send(request.res, rpc, { error: { code: TASK_RPC.internal, message: 'The service could not serve this task request; try again shortly.' } });
  }
}

/**
 * The TTL a task gets: what its client asked for, within the operator's limit. 2026-07-28 has no
 * field for it; a client of the extension's first version still sends `task: { ttl }`, read
 * leniently (anything else is the limit).
 */
export function ttlFor(requested: unknown, limitMs: number): number {
  const ttl = (requested as { ttl?: unknown } | null | undefined)?.ttl;
  // At least a second: an outcome kept for no time could never be read.
  return typeof ttl === 'number' && Number.isSafeInteger(ttl) && ttl >= 0 ? Math.min(Math.max(ttl, 1000), limitMs) : limitMs;
}

function rpcOf(body: Buffer): Rpc | null {
  try {
    const value = JSON.parse(body.toString('utf8')) as Rpc;
    return value && typeof value === 'object' && typeof value.method === 'string' && value.id !== undefined ? value : null;
  } catch {
    return null;
  }
}

function send(res: ServerResponse, rpc: Rpc, payload: { result: unknown } | { error: unknown }): void {
  if (res.destroyed || res.headersSent) return;
  const created = 'result' in payload ? payload.result as { resultType?: unknown; taskId?: unknown } : null;
  if (created?.resultType === 'task' && typeof created.taskId === 'string') answeredWithTask(res, created.taskId);
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, ...payload }));
}
