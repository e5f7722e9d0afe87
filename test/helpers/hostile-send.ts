// Sends hostile requests byte for byte (undici writes the path as given: no dot-segment removal,
// no re-encoding, unlike fetch) with bounded concurrency, and checks every answer against the
// contract: never a 5xx, every 4xx an RFC 9457 problem whose status matches, 405 with Allow.
import { Readable } from 'node:stream';
import { Pool } from 'undici';

export interface HostileCase {
  /** Category and a short description, for the failure report. */
  name: string;
  method: string;
  /** Raw request target: sent exactly as written. */
  path: string;
  headers?: Record<string, string>;
  /** A function body is sent chunked (no Content-Length). */
  body?: string | Buffer | (() => AsyncIterable<Buffer>);
  /** Acceptable statuses; absent: any 4xx. */
  expect?: readonly number[];
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const TIMEOUT_MS = 15_000;

export function hostileSender(origin: string, connections: number) {
  const pool = new Pool(origin, { connections, pipelining: 1 });

  async function send(c: HostileCase): Promise<Answer> {
    const body = typeof c.body === 'function' ? Readable.from(c.body()) : c.body;
    const res = await pool.request({
      path: c.path,
      method: c.method as 'GET',
      headers: c.headers,
      body,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
      // A body the server refuses unread (413) may leave the connection unusable: use it once.
      reset: body !== undefined,
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text };
  }

  /** Runs every case, `concurrency` at a time; returns one line per contract violation. */
  async function run(cases: readonly HostileCase[], concurrency: number): Promise<{ failures: string[]; statuses: Map<number, number> }> {
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const index = next++;
        const c = cases[index]!;
        try {
          const answer = await send(c);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          const problem = violation(c, answer);
          if (problem) failures.push(`#${index} ${c.name}: ${c.method} ${c.path.slice(0, 120)} -> ${answer.status}: ${problem}`);
        } catch (err) {
          failures.push(`#${index} ${c.name}: ${c.method} ${c.path.slice(0, 120)} -> no answer: ${(err as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return { failures, statuses };
  }

  return { send, run, close: () => pool.close() };
}

/** What is wrong with this answer, or null. */
export function violation(c: HostileCase, answer: Answer): string | null {
  const { status } = answer;
  if (status >= 500) return `server error ${answer.text.slice(0, 200)}`;
  if (c.expect ? !c.expect.includes(status) : status < 400 || status >= 500) {
    return `expected ${c.expect?.join('/') ?? '4xx'}; body ${answer.text.slice(0, 200)}`;
  }
  const allow = header(answer, 'allow');
  if ((status === 405 || (c.method === 'OPTIONS' && status < 300)) && !allow) return `${status} to ${c.method} without an Allow header`;
  if (status < 400) return null;
  const type = header(answer, 'content-type') ?? '';
  // The MCP paths answer a JSON-RPC request with a JSON-RPC error whose data is the problem.
  const mcpPath = /\/mcp(?:[/?]|$)/.test(c.path);
  if (!type.startsWith('application/problem+json') && !(mcpPath && type.startsWith('application/json'))) return `content-type ${type || '(none)'}; body ${answer.text.slice(0, 120)}`;
  if (c.method === 'HEAD') return null; // no body by definition
  let body: { type?: unknown; title?: unknown; status?: unknown };
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `problem body is not JSON: ${answer.text.slice(0, 120)}`;
  }
  if (type.startsWith('application/json')) {
    const error = (body as { jsonrpc?: unknown; error?: { code?: unknown; data?: typeof body } }).error;
    if ((body as { jsonrpc?: unknown }).jsonrpc !== '2.0' || typeof error?.code !== 'number' || !error.data) return `not a JSON-RPC error carrying a problem: ${answer.text.slice(0, 120)}`;
    body = error.data;
  }
  if (typeof body.type !== 'string' || !body.type) return 'problem without type';
  if (typeof body.title !== 'string' || !body.title) return 'problem without title';
  if (body.status !== status) return `problem status ${String(body.status)} differs from HTTP status`;
  return null;
}

function header(answer: Answer, name: string): string | undefined {
  const value = answer.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
