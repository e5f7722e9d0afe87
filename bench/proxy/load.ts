// Closed-loop load: `concurrency` workers on one keep-alive undici Pool, each sending its next
// request when the previous answer has been read in full. Bounded by a request count.
import { Pool } from 'undici';

export interface Target {
  name: string;
  pool: Pool;
  path: string;
  headers: Record<string, string>;
  /** Paths used in turn, request by request, instead of `path` (connectors of several owners). */
  paths?: string[];
  /** Caller credentials (Authorization values) used in turn, request by request; none: `headers` alone. */
  authorizations?: string[];
  /** An uncounted burst before a round. */
  warmUp?: boolean;
  /** Processes whose CPU time is charged to this path (the proxy in the middle), if any. */
  cpuPids?: number[];
}

export interface RoundResult {
  latenciesMs: number[];
  elapsedMs: number;
  /** Answers that were not 2xx, or 2xx without a JSON-RPC result. */
  bad: number;
}

let nextId = 1;

export async function runRound(target: Target, requests: number, concurrency: number): Promise<RoundResult> {
  const latenciesMs: number[] = [];
  let bad = 0;
  let issued = 0;
  const headerSets = target.authorizations?.map((authorization) => ({ ...target.headers, authorization })) ?? [target.headers];
  const worker = async () => {
    while (issued < requests) {
      issued++;
      const id = nextId++; // one MCP session serves all workers: ids must not collide
      const body = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`;
      const start = performance.now();
      const headers = headerSets[id % headerSets.length]!;
      const path = target.paths ? target.paths[id % target.paths.length]! : target.path;
      const res = await target.pool.request({ method: 'POST', path, headers, body });
      const text = await res.body.text();
      latenciesMs.push(performance.now() - start);
      if (res.statusCode < 200 || res.statusCode > 299 || !text.includes(`"id":${id}`) || !text.includes('"result"')) bad++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latenciesMs, elapsedMs: performance.now() - start, bad };
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function mcpHeaders(sessionId: string, protocolVersion: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': sessionId,
    'mcp-protocol-version': protocolVersion,
    ...extra,
  };
}
