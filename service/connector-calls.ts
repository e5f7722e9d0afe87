// The worker's requests to connectors' MCP servers, for the tasks the service owns
// (activities/tool-task-activities.ts): made through the proxy's own upstream client, so that a
// task's call gets what a relayed one does — the connector's current token from its workflow,
// a refresh and one retry on a 401, the address guard, per-owner socket pools. Only revision
// 2026-07-28 is spoken: tasks are an extension of that revision, and its requests stand alone.
import type { IncomingMessage } from 'node:http';
import type { ConnectorAnswer, ConnectorCalls, ConnectorRpc } from '../activities/tool-task-activities';
import type { Route, RouteSource } from '../proxy/route';
import type { UpstreamClient } from '../proxy/upstream-client';
import { readText } from '../proxy/tasks/upstream-task-support';

const REVISION = '2026-07-28';
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export function connectorCalls(routes: RouteSource, upstream: UpstreamClient): ConnectorCalls {
  async function send(connectorId: string, rpc: ConnectorRpc, signal?: AbortSignal): Promise<IncomingMessage> {
    const route = await routes.get(connectorId);
    if (route.kind !== 'connected') throw new Error(notConnected(route));
    const name = rpc.method === 'tools/call' ? { 'mcp-name': String(rpc.params.name) } : {};
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': REVISION, 'mcp-method': rpc.method, ...name };
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...rpc }));
    const { answer } = await upstream.send(connectorId, route, { method: 'POST', headers, body, signal });
    return answer;
  }

  return {
    async request(connectorId, rpc, signal) {
      const answer = await send(connectorId, rpc, signal);
      const text = await readText(answer, MAX_ANSWER_BYTES);
      const message = answerOf(text, answer.headers['content-type'] ?? '', rpc.id);
      if (!message) throw new Error(`the MCP server answered HTTP ${answer.statusCode} without a JSON-RPC answer`);
      return message;
    },
    async notify(connectorId, rpc) {
      (await send(connectorId, rpc)).resume();
    },
  };
}

function notConnected(route: Exclude<Route, { kind: 'connected' }>): string {
  return route.kind === 'not_found' ? 'the connector no longer exists' : `the connector is ${route.state}, not connected`;
}

/** The JSON-RPC answer to `id` in a JSON body or an SSE stream of messages. */
function answerOf(text: string, contentType: string, id: unknown): ConnectorAnswer | null {
  const messages = contentType.includes('text/event-stream') ? sseMessages(text) : [parse(text)];
  const found = messages.find((m) => m && m.id === id && ('result' in m || 'error' in m));
  if (!found) return null;
  return 'error' in found ? { error: found.error as { code: number; message: string } } : { result: found.result as Record<string, unknown> };
}

function sseMessages(text: string): Array<Record<string, unknown> | null> {
  return text.split(/\r?\n\r?\n/).map((event) => {
    const data = event.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).replace(/^ /, ''));
    return data.length ? parse(data.join('\n')) : null;
  });
}

function parse(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
