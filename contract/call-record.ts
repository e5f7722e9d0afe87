// One MCP request through the proxy, as the per-call audit keeps it: who called which connector
// in which session, the JSON-RPC method and the tool, resource or prompt it named, how it ended,
// how long it took and how many bytes went each way. Never the arguments or the result: the
// proxy reads only a method, a name and an error code out of the bodies' first bytes.
// The proxy produces CallEntry, store/ keeps it, the API answers CallSchema.
// A task the service owns adds a row of its own for each change of its status (`task`), written
// by its workflow: who made the change and how the task stood, never its arguments or outcome.
import { z } from 'zod';
import { displayUrl } from './display-url';
import { APPROVAL_STATES } from './approvals';
import { TASK_STATUSES } from './task-record';

/** What the request's body turned out to be, as far as its first bytes tell. */
export const BODY_SHAPES = ['message', 'batch', 'unreadable', 'none'] as const;
export type BodyShape = (typeof BODY_SHAPES)[number];

/** Longest method and name kept: a caller must not fill the audit through them. */
export const MAX_METHOD_LENGTH = 128;
export const MAX_NAME_LENGTH = 512;

/**
 * The name kept for a request: a resource URI (resources/read and the like, or any name with a
 * scheme) loses its user info, query and fragment, which may hold a key or the user's own data
 * (`db://orders?customer=...`); the rest of the URI still says which resource was read.
 */
export function auditedName(rpcMethod: string | null, name: string | null): string | null {
  if (name === null) return null;
  return rpcMethod?.startsWith('resources/') || /^[a-z][a-z\d+.-]*:/i.test(name) ? displayUrl(name) : name;
}

/** The HTTP method a task's row names: no request made the change, the task's workflow did. */
export const TASK_ROW_METHOD = 'TASK';

export const TaskChangeRowSchema = z.object({
  task_id: z.string(),
  status: z.enum(TASK_STATUSES).meta({ description: 'The status the task moved to (its first row: the status it was created in)' }),
  change: z.number().int().min(1).meta({ description: 'Which change of the task this is, counted from its creation (1); where the server owns it (observed), counted from the first status seen' }),
  by: z.string().nullable().meta({ description: 'Who made the change, where someone did: the approver who decided, the caller who cancelled' }),
  approval: z.enum(APPROVAL_STATES).optional().meta({ description: 'Set where the change was an approval: pending (held at creation), approved, denied or expired' }),
  unknown_outcome: z.boolean().optional().meta({ description: 'Set on a failure whose outcome is unknown (its worker died mid-call, the tool not idempotent)' }),
  skipped: z.number().int().min(1).optional().meta({ description: 'Set where the database refused writes for longer than a task keeps unwritten changes (1,000): how many changes just before this one have no row' }),
  observed: z.literal(true).optional().meta({ description: "Set where the MCP server owns the task: a status the proxy saw in the server's answer to a relayed tools/call or tasks/* request (a change between two of them is not seen)" }),
});
export type TaskChangeRow = z.infer<typeof TaskChangeRowSchema>;

export interface CallEntry {
  at: Date;
  connectorId: string;
  /** The caller's subject; null with caller authentication off. */
  caller: string | null;
  sessionId: string | null;
  httpMethod: string;
  rpcMethod: string | null;
  /** params.name (tools/call, prompts/get) or params.uri (resources/read and the like), as auditedName keeps it. */
  rpcName: string | null;
  body: BodyShape;
  /** The HTTP status answered; null when the client left before one was sent. */
  status: number | null;
  /** The JSON-RPC error code of the answer, when it was an error. */
  rpcErrorCode: number | null;
  durationMs: number;
  requestBytes: number;
  responseBytes: number;
  /** A call through a toolset: the toolset, and the member it went to (null: none, e.g. tools/list). */
  toolsetId?: string;
  memberId?: string | null;
  /** A tools/call answered with a task (the service's own, or its server's, relayed): the task's id. */
  taskId?: string;
  /** A task's change of status, not a request (TASK_ROW_METHOD). */
  task?: TaskChangeRow;
}

export const CallSchema = z
  .object({
    id: z.string(),
    time: z.string().meta({ description: 'When the request arrived (RFC 3339)' }),
    caller: z.string().nullable(),
    session_id: z.string().nullable().meta({ description: 'Mcp-Session-Id of the request, or the one the answer gave' }),
    http_method: z.string().meta({ description: `The request's HTTP method; \`${TASK_ROW_METHOD}\` on a row of a task's change of status (\`task\`), which no request made` }),
    rpc_method: z.string().nullable(),
    rpc_name: z.string().nullable().meta({ description: 'params.name, else params.uri, of the request; a URI without user info, query or fragment' }),
    body: z.enum(BODY_SHAPES).meta({ description: 'message: one JSON-RPC message; batch: an array; unreadable: neither; none: no body (GET, DELETE)' }),
    status: z.number().int().nullable().meta({ description: 'HTTP status; null when the client left before it was answered' }),
    rpc_error_code: z.number().int().nullable(),
    duration_ms: z.number(),
    request_bytes: z.number().int(),
    response_bytes: z.number().int(),
    toolset_id: z.string().optional().meta({ description: 'Set on a call made through a toolset: the toolset' }),
    member_id: z.string().nullable().optional().meta({ description: 'Set on a call made through a toolset: the member connector it went to (null: none, e.g. tools/list)' }),
    task_id: z.string().optional().meta({ description: 'Set on a tools/call answered with a task: the task it created (the service\'s own, whose rows carry `task`, or the MCP server\'s, relayed), which the tasks/* calls name' }),
    task: TaskChangeRowSchema.optional().meta({
      description: 'Set on a row of a task the service owns (MCP Tasks): one per change of its status, written once its workflow holds it; rpc_method is tools/call, rpc_name the tool, caller who started it; no HTTP status, duration or bytes',
    }),
  })
  .meta({ id: 'ConnectorCall' });
export type Call = z.infer<typeof CallSchema>;

export const CallListSchema = z
  .object({
    items: z.array(CallSchema),
    has_more: z.boolean(),
    next_page_token: z.string().nullable(),
  })
  .meta({ id: 'ConnectorCallList' });
