// Whether a connector's MCP server runs tasks itself (its server/discover lists the Tasks
// extension): then every task request is relayed to it as is; otherwise the service owns the
// tasks of declaring clients (gateway-tasks.ts). Learned from the server's own discover answer,
// whichever of the service or a client asked, and kept for a few minutes per connector.
import type { IncomingMessage } from 'node:http';
import { TASKS_EXTENSION } from '../../contract/tool-tasks';
import type { ConnectedRoute } from '../route';
import type { UpstreamClient } from '../upstream-client';

/** native: the server runs tasks; plain: a 2026-07-28 server without them; other: not ours to serve (another revision, no answer). */
export type TaskSupportKind = 'native' | 'plain' | 'other';

const KEEP_MS = 5 * 60_000;
const REVISION = '2026-07-28';

export class UpstreamTaskSupport {
  private readonly known = new Map<string, { kind: TaskSupportKind; at: number }>();

  constructor(private readonly upstream: UpstreamClient) {}

  async of(connectorId: string, route: ConnectedRoute): Promise<TaskSupportKind> {
    const entry = this.known.get(connectorId);
    if (entry && Date.now() - entry.at < KEEP_MS) return entry.kind;
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'task-support', method: 'server/discover', params: {} }));
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': REVISION, 'mcp-method': 'server/discover' };
    try {
      const { answer } = await this.upstream.send(connectorId, route, { method: 'POST', headers, body });
      return this.learn(connectorId, messageOf(answer.headers['content-type'], await readText(answer)));
    } catch {
      return 'other'; // not remembered: the next request asks again
    }
  }

  /** A discover answer (the service's or a client's): what it says about tasks, remembered. */
  learn(connectorId: string, message: Record<string, unknown> | null): TaskSupportKind {
    const result = message?.result as { capabilities?: { extensions?: Record<string, unknown> } } | undefined;
    const kind: TaskSupportKind = !result ? 'other' : result.capabilities?.extensions?.[TASKS_EXTENSION] !== undefined ? 'native' : 'plain';
    this.known.set(connectorId, { kind, at: Date.now() });
    return kind;
  }

  forget(connectorId: string): void {
    this.known.delete(connectorId);
  }
}

const MAX_BYTES = 1024 * 1024;

/** The whole body of an upstream answer, refused beyond `limit` bytes. */
export function readText(answer: IncomingMessage, limit = MAX_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    answer.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) answer.destroy(new Error(`the MCP server's answer is over ${limit} bytes`));
      else chunks.push(chunk);
    });
    answer.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    answer.on('error', reject);
  });
}

/** The one JSON-RPC message of a JSON body, or the first of an SSE stream. */
export function messageOf(contentType: string | undefined, text: string): Record<string, unknown> | null {
  const json = contentType?.includes('text/event-stream')
    ? text.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim())[0]
    : text;
  try {
    const value = JSON.parse(json ?? '') as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
