// MCP 2026-07-28 mirrors a request's JSON-RPC method and name into HTTP headers (Mcp-Method,
// Mcp-Name; SEP-2243) so that intermediaries can route without reading the body, and requires a
// server to refuse a request whose headers disagree with its body (HTTP 400). The proxy records and
// decides from the body, never from the headers (a caller could otherwise label a call to one tool
// with another's name in the audit), and refuses a disagreement itself, before anything goes
// upstream, as the server would: the upstream executes the body, so the body is the truth.
//
// The check needs the whole body: JSON keeps the last of repeated keys, so a method or a name
// read from a prefix could differ from what the server acts on. So a POST carrying either header
// is read whole (bounded) before it is relayed; requests without them (the 2025 era) are streamed
// as before, and what the audit records of them is read from the body's prefix (rpc-prefix.ts).
//
// What each method names (Mcp-Name): params.name for tools/call and prompts/get, params.uri for
// resources/read, and, for the Tasks extension (io.modelcontextprotocol/tasks, SEP-2663),
// params.taskId for tasks/get, tasks/update and tasks/cancel. A disagreement answers 400 with
// JSON-RPC error -32020 (problem-response.ts).
//
// Choices the specification leaves open:
// - Batches (a JSON array) carry no Mcp-Method in 2026-07-28 (it has no batches); a batch that
//   comes with either header is refused, one without is relayed as in the 2025 era.
// - A method of the core protocol that names nothing refuses an Mcp-Name (no body value can
//   match it). A method the service does not know (an extension's) is relayed with whatever
//   Mcp-Name it carries: what it names is for the server that knows the method to check.
//   A missing header is not refused: the upstream, which knows its revision, judges that.
// - Mcp-Param-* headers are relayed unchanged and not compared (their mapping comes from each
//   tool's input schema, which the proxy does not hold).
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { MAX_METHOD_LENGTH, MAX_NAME_LENGTH } from '../contract/call-record';
import { ProblemError } from '../contract/problem';
import type { RequestFacts } from './rpc-prefix';

/** The mirrored headers of a request, as sent (null: absent). */
export interface RpcHeaders {
  method: string | null;
  name: string | null;
}

/** Where a method's name lives in its params (SEP-2243's Mcp-Name; SEP-2663 for tasks). */
export const NAME_FIELD: ReadonlyMap<string, 'name' | 'uri' | 'taskId'> = new Map([
  ['tools/call', 'name'], ['prompts/get', 'name'], ['resources/read', 'uri'],
  ['tasks/get', 'taskId'], ['tasks/update', 'taskId'], ['tasks/cancel', 'taskId'],
]);

/** Methods of the core protocol (both revisions) that name nothing an Mcp-Name could carry. */
const UNNAMED = new Set([
  'initialize', 'ping', 'server/discover', 'subscriptions/listen', 'tools/list', 'prompts/list', 'resources/list',
  'resources/templates/list', 'resources/subscribe', 'resources/unsubscribe', 'logging/setLevel', 'completion/complete', 'tasks/list',
]);
const BASE64_VALUE = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/** The mirrored headers of a POST that has either; null when it has neither (nothing to check). */
export function rpcHeadersOf(req: IncomingMessage): RpcHeaders | null {
  if (req.method !== 'POST') return null;
  const { 'mcp-method': method, 'mcp-name': name } = req.headers as IncomingHttpHeaders & Record<'mcp-method' | 'mcp-name', string | undefined>;
  if (method === undefined && name === undefined) return null;
  return { method: method ?? null, name: name ?? null };
}

/** Answered as JSON-RPC error -32020 (HeaderMismatch) to a JSON-RPC request (problem-response.ts). */
export class HeaderMismatch extends ProblemError {
  constructor(detail: string) {
    super(400, detail, 'header-mismatch');
  }
}

export interface CheckedBody {
  /** What the body says (recorded by the audit whether or not the headers agree). */
  facts: RequestFacts;
  /** Set when the headers disagree with the body: the answer, and nothing goes upstream. */
  mismatch?: HeaderMismatch;
}

const UNREADABLE: RequestFacts = Object.freeze({ body: 'unreadable', method: null, name: null, id: null });
const BATCH: RequestFacts = Object.freeze({ body: 'batch', method: null, name: null, id: null });

/** What the body says, and whether the mirrored headers agree with it. */
export function checkRpcHeaders(body: Buffer, headers: RpcHeaders): CheckedBody {
  let message: unknown;
  try {
    message = JSON.parse(body.toString('utf8'));
  } catch {
    return { facts: UNREADABLE, mismatch: new HeaderMismatch('The request carries Mcp-Method or Mcp-Name, and its body is not JSON.') };
  }
  if (Array.isArray(message)) {
    return { facts: BATCH, mismatch: new HeaderMismatch('A batch carries no Mcp-Method or Mcp-Name: one header cannot describe several messages.') };
  }
  if (typeof message !== 'object' || message === null) return { facts: UNREADABLE, mismatch: new HeaderMismatch('The body is not a JSON-RPC message.') };
  const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
  const args = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
  const field = typeof method === 'string' ? NAME_FIELD.get(method) : undefined;
  const name = field === undefined ? args.name ?? args.uri : args[field];
  const facts: RequestFacts = {
    body: 'message',
    method: typeof method === 'string' ? method.slice(0, MAX_METHOD_LENGTH) : null,
    name: typeof name === 'string' ? name.slice(0, MAX_NAME_LENGTH) : null,
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
  };
  return { facts, mismatch: mismatchOf(headers, method, args) };
}

function mismatchOf(headers: RpcHeaders, method: unknown, args: Record<string, unknown>): HeaderMismatch | undefined {
  if (headers.method !== null && headers.method !== method) {
    return new HeaderMismatch('The Mcp-Method header does not match the method in the body.');
  }
  if (headers.name === null) return undefined;
  if (typeof method !== 'string') return new HeaderMismatch('The request carries Mcp-Name, and its body names no method.');
  const field = NAME_FIELD.get(method);
  if (field === undefined && !UNNAMED.has(method) && !method.startsWith('notifications/')) return undefined; // not ours to judge
  const named = field === undefined ? undefined : args[field];
  const decoded = decodeHeaderValue(headers.name);
  if (decoded === null) return new HeaderMismatch('The Mcp-Name header is not validly encoded.');
  if (typeof named !== 'string' || named !== decoded) return new HeaderMismatch('The Mcp-Name header does not match the name in the body.');
  return undefined;
}

/**
 * A mirrored header's value: as sent, or `=?base64?…?=` (standard alphabet, UTF-8) for one that
 * is not plain visible ASCII. Null when the encoded form does not decode.
 */
export function decodeHeaderValue(value: string): string | null {
  if (!value.startsWith('=?base64?')) return value;
  const match = BASE64_VALUE.exec(value);
  if (!match) return null;
  const bytes = Buffer.from(match[1]!, 'base64');
  if (bytes.toString('base64') !== match[1]) return null; // not canonical: something else was meant
  const text = bytes.toString('utf8');
  return Buffer.byteLength(text) === bytes.length ? text : null; // not UTF-8
}

/** The whole body, or null when it runs past `limit` (the rest is left unread). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      cleanup();
      req.pause();
      resolve(null);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onClose = () => {
      cleanup();
      reject(new Error('the caller went away while sending its body'));
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
  });
}
