// The Tasks extension's wire (io.modelcontextprotocol/tasks, SEP-2663, revision 2026-07-28) as the
// service speaks it for the tasks it owns: who declared the extension, which statuses are terminal,
// and how a tool's task support is decided when its server has none of its own.
import type { Ciphertext } from './ciphertext';
import { globMatches } from './glob';
import type { TASK_STATUSES } from './task-record';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** Where a 2026-07-28 request carries the client's capabilities (SEP-2575). */
export const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** JSON-RPC codes the extension and SEP-2575 give meaning to. */
export const TASK_RPC = {
  missingCapability: -32021,
  invalidParams: -32602,
  methodNotFound: -32601,
  internal: -32603,
} as const;

/** The methods of the extension a client sends; tasks/result and tasks/list were removed (v1 only). */
export const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);
export const REMOVED_TASK_METHODS: ReadonlySet<string> = new Set(['tasks/result', 'tasks/list']);

/** Whether a request's params declare the extension (per request, as 2026-07-28 clients do). */
export function declaresTasks(params: unknown): boolean {
  const meta = (params as { _meta?: Record<string, unknown> } | null | undefined)?._meta;
  const capabilities = meta?.[CLIENT_CAPABILITIES_META] as { extensions?: Record<string, unknown> } | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** The error data naming the extension a refused request lacked. */
export const missingTasksCapability = () => ({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });

/**
 * An operator's marks: tool-name globs with the support they give, first match wins; a tool no
 * mark names may run as a task (`optional`).
 */
export function taskSupportOf(marks: ReadonlyArray<{ tools: string; support: TaskSupport }>, tool: string): TaskSupport {
  return marks.find((mark) => globMatches(mark.tools, tool))?.support ?? 'optional';
}

/** What the sealed parts of a task are sealed for (with its connector): that task, never another. */
export const toolTaskSecretPurpose = (taskId: string): string => `tool-task/${taskId}`;

/** One round of a task's call: what the server answered, sealed, with the keys of any input it asks. */
export type RoundOutcome =
  | { kind: 'complete'; sealed: Ciphertext }
  | { kind: 'error'; sealed: Ciphertext }
  | { kind: 'input_required'; sealed: Ciphertext; keys: string[] };
