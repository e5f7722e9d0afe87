// One MCP request through the proxy, as the per-call audit keeps it: who called which connector
// in which session, the JSON-RPC method and the tool, resource or prompt it named, how it ended,
// how long it took and how many bytes went each way. Never the arguments or the result: the
// proxy reads only a method, a name and an error code out of the bodies' first bytes.
// The proxy produces CallEntry, store/ keeps it, the API answers CallSchema.
import { z } from 'zod';
import { displayUrl } from './display-url';

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
}

export const CallSchema = z
  .object({
    id: z.string(),
    time: z.string().meta({ description: 'When the request arrived (RFC 3339)' }),
    caller: z.string().nullable(),
    session_id: z.string().nullable().meta({ description: 'Mcp-Session-Id of the request, or the one the answer gave' }),
    http_method: z.string(),
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
