// The side effects of a task the service owns (workflows/tool-task.ts): one round of the tool
// call against the connector's MCP server, and sealing what the workflow must keep. The call's
// params, the answers gathered and the server's answer are opened and sealed here, so history
// only ever holds ciphertext.
import { Context } from '@temporalio/activity';
import type { Ciphertext } from '../contract/ciphertext';
import type { NumberedChange, TaskSummary } from '../contract/task-record';
import type { TaskStore } from '../store/task-store';
import type { CallAuditStore } from '../store/call-audit-store';
import { taskAuditRows } from './task-audit-rows';
import { secretContext, type SecretBox } from '../platform/secret-box';
import { toolTaskSecretPurpose, type RoundOutcome } from '../contract/tool-tasks';

/** A JSON-RPC request or notification of the service's own to a connector's MCP server (2026-07-28). */
export interface ConnectorRpc {
  id?: string;
  method: string;
  params: Record<string, unknown>;
}

/** The server's answer to one request: its JSON-RPC result or error. */
export type ConnectorAnswer = { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } };

/**
 * Requests to a connector's MCP server with its current token, refreshed on a 401 as the proxy
 * does; every connection passes the address guard. Rejects when the server cannot be reached or
 * answers with something that is not a JSON-RPC answer.
 */
export interface ConnectorCalls {
  request(connectorId: string, rpc: ConnectorRpc, signal: AbortSignal): Promise<ConnectorAnswer>;
  notify(connectorId: string, rpc: ConnectorRpc): Promise<void>;
}

export interface ToolTaskActivityDeps {
  secrets: SecretBox;
  calls: ConnectorCalls;
  /** Where connectors' owners list the tasks (absent: not listed). */
  tasks?: TaskStore;
  /** Where the per-call audit gets a row for each change of a task's status (absent: none written). */
  callAudit?: Pick<CallAuditStore, 'appendOnce'>;
}

export interface RoundInput {
  connectorId: string;
  taskId: string;
  call: Ciphertext;
  /** The sealed inputResponses of each tasks/update since the server last asked. */
  answers: Ciphertext[];
  /** The sealed input_required outcome of the round before (its requestState goes back). */
  requestState: Ciphertext | null;
}

const HEARTBEAT_MS = 1_000;

export function createToolTaskActivities(deps: ToolTaskActivityDeps) {
  const box = (connectorId: string, taskId: string) => {
    const context = secretContext(connectorId, toolTaskSecretPurpose(taskId));
    return {
      open: (sealed: Ciphertext) => JSON.parse(deps.secrets.open(sealed, context)) as Record<string, unknown>,
      seal: (value: unknown) => deps.secrets.seal(JSON.stringify(value), context),
    };
  };

  return {
    async callToolRound(input: RoundInput): Promise<RoundOutcome> {
      const { open, seal } = box(input.connectorId, input.taskId);
      const params = roundParams(open(input.call), input.answers.map(open), input.requestState ? open(input.requestState) : null);
      const context = Context.current();
      const id = `task-${input.taskId}-${context.info.attempt}`;
      const beat = setInterval(() => context.heartbeat(), HEARTBEAT_MS);
      try {
        const answer = await deps.calls.request(input.connectorId, { id, method: 'tools/call', params }, context.cancellationSignal);
        return outcomeOf(answer, seal);
      } catch (err) {
        // Cancelled: the server hears of it, as a client that gives up on a call tells it.
        if (context.cancellationSignal.aborted) {
          await deps.calls.notify(input.connectorId, { method: 'notifications/cancelled', params: { requestId: id, reason: 'the task was cancelled' } }).catch(() => undefined);
        }
        throw err;
      } finally {
        clearInterval(beat);
      }
    },

    /**
     * The task as its connector's owner lists it, as of the workflow's `seq`-th change, and a
     * per-call audit row for each change after `audited` (absent: every change its history
     * keeps) on the connector's audit, and on the toolset's when one started it. Every write is
     * keyed: a retry writes nothing twice.
     */
    async recordTask(input: { connectorId: string; seq: number; task: TaskSummary; audited?: number; backlog?: NumberedChange[] }): Promise<void> {
      await deps.tasks?.record(input.connectorId, input.seq, input.task);
      const audit = deps.callAudit;
      if (!audit) return;
      for (const { key, entry } of taskAuditRows(input.connectorId, input.seq, input.task, input.audited ?? 0, input.backlog)) {
        await audit.appendOnce(input.connectorId, key, entry);
        if (entry.toolsetId) await audit.appendOnce(entry.toolsetId, key, entry);
      }
    },

    async forgetTask(input: { connectorId: string; taskId: string }): Promise<void> {
      await deps.tasks?.forget(input.connectorId, input.taskId);
    },

    /** A failure's words, sealed as the JSON-RPC error a failed task carries. */
    async sealTaskError(input: { connectorId: string; taskId: string; message: string }): Promise<Ciphertext> {
      return box(input.connectorId, input.taskId).seal({ code: -32603, message: input.message });
    },
  };
}

/** The params of the next round: the call as made, with the answers gathered and the server's own state. */
function roundParams(call: Record<string, unknown>, answers: Array<Record<string, unknown>>, asked: Record<string, unknown> | null): Record<string, unknown> {
  if (!asked) return call;
  const inputResponses = Object.assign({}, ...answers) as Record<string, unknown>;
  const { requestState } = asked as { requestState?: unknown };
  return { ...call, inputResponses, ...(requestState === undefined ? {} : { requestState }) };
}

function outcomeOf(answer: ConnectorAnswer, seal: (value: unknown) => Ciphertext): RoundOutcome {
  if ('error' in answer) return { kind: 'error', sealed: seal(answer.error) };
  const { resultType, ...result } = answer.result;
  if (resultType === 'input_required') {
    const requests = (result.inputRequests ?? {}) as Record<string, unknown>;
    return { kind: 'input_required', sealed: seal(result), keys: Object.keys(requests) };
  }
  return { kind: 'complete', sealed: seal(result) };
}
