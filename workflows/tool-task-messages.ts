// The messages of a task the service owns (workflows/tool-task.ts), typed once for the workflow,
// the proxy that starts and serves it, and the tests. Everything a caller or a server wrote (the
// call's arguments, its answers, the result, the input requests) travels sealed: history holds
// ciphertext, and only the process that serves the task opens it.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Ciphertext } from '../contract/ciphertext';
import type { TaskStatus } from '../contract/tool-tasks';
import type { ApprovalState } from '../contract/approvals';
export type { RoundOutcome } from '../contract/tool-tasks';

export const TOOL_TASK_WORKFLOW = 'toolTaskWorkflow';
export const toolTaskWorkflowId = (connectorId: string, taskId: string): string => `tool-task:${connectorId}:${taskId}`;

export interface ToolTaskInput {
  taskId: string;
  connectorId: string;
  /** Who started it (the caller's subject; null with caller authentication off): no one else sees it. */
  caller: string | null;
  tool: string;
  /** The toolset whose MCP path started it (absent: the connector's own path). */
  toolsetId?: string;
  /** The tools/call params (name, arguments, and answers of a multi round-trip request), sealed. */
  call: Ciphertext;
  /** The tool says it is idempotent: a call its worker died in may be made again. */
  idempotent: boolean;
  ttlMs: number;
  pollIntervalMs: number;
  /** A rule holds the call for approval (contract/approvals.ts): no round runs before an approver says yes. */
  approval?: ApprovalInput;
  /** The most changes kept unwritten for the audit (default MAX_AUDIT_BACKLOG; tests set fewer). */
  auditBacklog?: number;
}

export interface ApprovalInput {
  /** Caller patterns (key:…, oidc:…, role:…) who may decide, as the rule said when the call came. */
  approvers: string[];
  timeoutMs: number;
  /** The inputRequests of the wait (a URL-mode elicitation pointing at the approval page), sealed. */
  request: Ciphertext;
}

export interface ApprovalView {
  state: ApprovalState;
  approvers: string[];
  expiresAt: string;
  decidedBy: string | null;
  decidedAt: string | null;
  /** The call's params, sealed: the approval page opens them for its approvers, no one else. */
  call: Ciphertext;
}

export interface ApprovalDecision {
  /** The approver's subject (key:…, oidc:…) and roles, as authenticated by the API. */
  subject: string;
  roles: string[];
  approve: boolean;
}

export interface ToolTaskView {
  taskId: string;
  connectorId: string;
  caller: string | null;
  tool: string;
  status: TaskStatus;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  /** completed: the sealed result; failed: the sealed JSON-RPC error; input_required: the sealed requests and request state. */
  outcome: Ciphertext | null;
  /** input_required: the keys still unanswered. */
  pending: string[];
  /** How many rounds have finished (a caller waiting for the first one watches it). */
  rounds: number;
  /** The task outlived its TTL, or was released: it no longer exists for any caller. */
  gone: boolean;
  /** The call's outcome is not known: its worker died mid-call and the tool is not idempotent. */
  unknownOutcome: boolean;
  /** Absent for a call no approval rule held (and for tasks started before approvals existed). */
  approval?: ApprovalView | null;
}

export interface TaskAnswers {
  /** The inputResponses of one tasks/update, sealed. */
  sealed: Ciphertext;
  keys: string[];
}

export const toolTaskQuery = defineQuery<ToolTaskView>('toolTask');
/** Waits until the first round has finished, at most `withinMs`, and answers the task as it then is. */
export const firstRoundUpdate = defineUpdate<ToolTaskView, [number]>('firstRound');
export const answerUpdate = defineUpdate<void, [TaskAnswers]>('answer');
export const cancelTaskUpdate = defineUpdate<void, [string]>('cancelTask');
/** An approver's decision; refused (validator) unless the approval is pending and the approver named by it. */
export const decideApprovalUpdate = defineUpdate<ApprovalView, [ApprovalDecision]>('decideApproval');
/** The caller was answered without a task (a quick result, or input asked before one): nothing to keep. */
export const releaseSignal = defineSignal('release');
