// What the audit and the metrics read out of an MCP exchange's bodies: the request's JSON-RPC
// method, the name it calls (params.name or params.uri) and its id; the answer's JSON-RPC error
// code. Only a bounded prefix of each body is ever kept (BodyPrefix, fed alongside the pipe), and
// it is read once the response has closed, never on the way through.
import { MAX_METHOD_LENGTH, MAX_NAME_LENGTH, type BodyShape } from '../contract/call-record';
import { TASK_STATUSES } from '../contract/task-record';
import type { TaskStatus } from '../contract/tool-tasks';
import { scanFields } from './json-prefix';

const isTaskStatus = (value: unknown): value is TaskStatus => (TASK_STATUSES as readonly unknown[]).includes(value);

/** Bytes of each body kept for reading: enough for a method and a name ahead of large arguments. */
export const PREFIX_BYTES = 4096;

/** The first bytes of a stream, at most `limit`, and how many it carried in all. */
export class BodyPrefix {
  private chunks: Buffer[] = [];
  private kept = 0;
  total = 0;

  constructor(private readonly limit = PREFIX_BYTES) {}

  /** A 'data' listener: keeps a reference to small chunks, copies only the part of a large one it keeps. */
  readonly add = (chunk: Buffer): void => {
    this.total += chunk.length;
    const room = this.limit - this.kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : Buffer.from(chunk.subarray(0, room));
    this.chunks.push(part);
    this.kept += part.length;
  };

  get truncated(): boolean {
    return this.total > this.kept;
  }

  text(): string {
    const bytes = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    return bytes.toString('utf8');
  }
}

export interface RequestFacts {
  body: BodyShape;
  method: string | null;
  name: string | null;
  id: string | number | null;
}

const REQUEST_FIELDS = new Set(['method', 'id', 'params.name', 'params.uri']);
export const NO_BODY: RequestFacts = Object.freeze({ body: 'none', method: null, name: null, id: null });
const UNREADABLE: RequestFacts = Object.freeze({ body: 'unreadable', method: null, name: null, id: null });
const BATCH: RequestFacts = Object.freeze({ body: 'batch', method: null, name: null, id: null });

/** What a request's prefix says it is; a batch or something not JSON-RPC is recorded as such. */
export function readRequest(prefix: BodyPrefix | undefined): RequestFacts {
  if (!prefix || prefix.total === 0) return NO_BODY;
  const text = prefix.text();
  const start = firstNonSpace(text);
  if (text[start] === '[') return BATCH;
  if (text[start] !== '{') return UNREADABLE;
  return prefix.truncated ? scannedRequest(text, start) : parsedRequest(text);
}

/** A whole body: JSON.parse is the quickest reader of a small one. */
function parsedRequest(text: string): RequestFacts {
  let message: { method?: unknown; id?: unknown; params?: { name?: unknown; uri?: unknown } | null };
  try {
    message = JSON.parse(text) as typeof message;
  } catch {
    return UNREADABLE;
  }
  const params = typeof message.params === 'object' && message.params !== null ? message.params : {};
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  return facts(message.method, params.name ?? params.uri, id);
}

/** A body cut off by the prefix: its fields as far as they go. */
function scannedRequest(text: string, start: number): RequestFacts {
  const { fields, outcome } = scanFields(text, REQUEST_FIELDS, start);
  if (outcome === 'broken') return UNREADABLE;
  return facts(fields.get('method'), fields.get('params.name') ?? fields.get('params.uri'), fields.get('id') ?? null);
}

function facts(method: unknown, name: unknown, id: string | number | null): RequestFacts {
  return {
    body: 'message',
    method: typeof method === 'string' ? method.slice(0, MAX_METHOD_LENGTH) : null,
    name: typeof name === 'string' ? name.slice(0, MAX_NAME_LENGTH) : null,
    id,
  };
}

const ANSWER_FIELDS = new Set(['id', 'method', 'error.code', 'result.resultType', 'result.taskId', 'result.status']);

/**
 * The JSON-RPC error code of the answer to the request with `id` (null when unknown, say cut off
 * behind large arguments: then the first answer in the stream is taken), or null when it was no
 * error or is not within the prefix. application/json holds the answer; text/event-stream holds
 * it as one of its events, perhaps after notifications and requests of the server's own.
 */
export function readAnswerError(prefix: BodyPrefix | undefined, contentType: string | undefined, id: string | number | null): number | null {
  const code = answerFields(prefix, contentType, id, '"error"')?.get('error.code');
  return typeof code === 'number' && Number.isInteger(code) ? code : null;
}

/** The task's id when the answer (found as readAnswerError finds it) is a task (SEP-2663: resultType "task"). */
export function readAnswerTask(prefix: BodyPrefix | undefined, contentType: string | undefined, id: string | number | null): string | null {
  const fields = answerFields(prefix, contentType, id, '"resultType"');
  const taskId = fields?.get('result.taskId');
  return fields?.get('result.resultType') === 'task' && typeof taskId === 'string' ? taskId.slice(0, MAX_NAME_LENGTH) : null;
}

export interface AnsweredTaskStatus {
  taskId: string;
  status: TaskStatus;
}

/** Where the answer (found as readAnswerError finds it) is a task (a created one, or tasks/get's): its id and status. */
export function readAnswerTaskStatus(prefix: BodyPrefix | undefined, contentType: string | undefined, id: string | number | null): AnsweredTaskStatus | null {
  const fields = answerFields(prefix, contentType, id, '"taskId"');
  const [taskId, status] = [fields?.get('result.taskId'), fields?.get('result.status')];
  return typeof taskId === 'string' && isTaskStatus(status) ? { taskId: taskId.slice(0, MAX_NAME_LENGTH), status } : null;
}

/** The fields of the answer to `id`; `needle` must be in the prefix for there to be anything to read (most answers: no). */
function answerFields(prefix: BodyPrefix | undefined, contentType: string | undefined, id: string | number | null, needle: string): Map<string, string | number> | undefined {
  if (!prefix || prefix.total === 0 || !contentType) return undefined;
  const text = prefix.text();
  if (!text.includes(needle)) return undefined;
  if (contentType.startsWith('application/json')) return fieldsOf(text, id, true);
  if (!contentType.startsWith('text/event-stream')) return undefined;
  for (const data of eventData(text)) {
    const fields = fieldsOf(data, id, false);
    if (fields) return fields;
  }
  return undefined;
}

/** The fields of a message answering `id`; undefined when it is not that answer. */
function fieldsOf(text: string, id: string | number | null, only: boolean): Map<string, string | number> | undefined {
  const start = firstNonSpace(text);
  if (text[start] !== '{') return undefined;
  const { fields } = scanFields(text, ANSWER_FIELDS, start);
  if (!only && (fields.has('method') || (id !== null && fields.get('id') !== id))) return undefined;
  return fields;
}

/** The data of each SSE event in `text`, the last one perhaps cut off. */
function* eventData(text: string): Generator<string> {
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length) yield data.join('\n');
      data = [];
    } else if (line.startsWith('data:')) {
      data.push(line.slice(line[5] === ' ' ? 6 : 5));
    }
  }
  if (data.length) yield data.join('\n');
}

function firstNonSpace(text: string): number {
  let i = 0;
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}
