// A small MCP client over the connector's (or toolset's) MCP path, for the console's tool list
// and its "try a tool" form: Streamable HTTP at 2025-11-25 (initialize, the session header, the
// answer as JSON or as Server-Sent Events), with the signed-in user's own credential, like any
// MCP client. Small on purpose: the SDK's client would triple the console's one script for the
// three requests it makes here.
import { ApiError } from './api';

export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: { type?: string; properties?: Record<string, { type?: string; description?: string; enum?: unknown[] }>; required?: string[] };
}

export interface CallResult {
  content?: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface McpSession {
  request<T>(method: string, params?: object): Promise<T>;
  close(): Promise<void>;
}

const PROTOCOL = '2025-11-25';

/** A JSON-RPC error answer; its data carries the service's problem details when the service itself refused. */
export class McpError extends Error {
  constructor(readonly code: number, message: string, readonly data?: { type?: string; detail?: string; status?: number }) {
    super(message);
  }
}

/**
 * `mcpUrl` is the record's (BASE_URL's origin); the console calls its path on the page's own
 * origin, which is the same service (in open loopback mode the page may be at 127.0.0.1 while
 * BASE_URL says localhost, and the CSP lets the console reach its own origin only).
 */
export async function openMcp(mcpUrl: string, authorization: string | null): Promise<McpSession> {
  const url = new URL(mcpUrl).pathname;
  let nextId = 1;
  let session: string | null = null;
  let version = PROTOCOL;
  const headers = (): Record<string, string> => ({
    'content-type': 'application/json', accept: 'application/json, text/event-stream',
    ...(authorization ? { authorization } : {}), ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': version } : {}),
  });
  const send = async (message: object): Promise<Response> => {
    const res = await fetch(url, { method: 'POST', headers: headers(), body: JSON.stringify(message), credentials: 'omit', cache: 'no-store' });
    if (!res.ok && !isJsonRpc(res)) throw await httpError(res);
    return res;
  };
  const request = async <T>(method: string, params?: object): Promise<T> => {
    const id = nextId++;
    const res = await send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return answerOf<T>(res, id);
  };
  const init = await request<{ protocolVersion: string }>('initialize', { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'connector-registry-console', version: '1' } });
  version = init.protocolVersion;
  await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    request,
    async close() {
      if (!session) return;
      await fetch(url, { method: 'DELETE', headers: headers(), credentials: 'omit' }).catch(() => undefined);
    },
  };

  async function answerOf<T>(res: Response, id: number): Promise<T> {
    session = res.headers.get('mcp-session-id') ?? session;
    const type = res.headers.get('content-type') ?? '';
    const messages = type.includes('text/event-stream') ? sseMessages(await res.text()) : [await res.json()];
    const answer = messages.find((m) => m && typeof m === 'object' && (m as { id?: unknown }).id === id) as { result?: T; error?: { code: number; message: string; data?: McpError['data'] } } | undefined;
    if (!answer) throw new McpError(-32603, 'the server sent no answer');
    if (answer.error) throw new McpError(answer.error.code, answer.error.message, answer.error.data);
    return answer.result as T;
  }
}

function isJsonRpc(res: Response): boolean {
  return (res.headers.get('content-type') ?? '').startsWith('application/json');
}

async function httpError(res: Response): Promise<ApiError> {
  const problem = (await res.json().catch(() => ({}))) as { type?: string; title?: string; detail?: string };
  return new ApiError({ type: problem.type, status: res.status, title: problem.title ?? res.statusText, detail: problem.detail });
}

/** The JSON of each `data:` event of a Server-Sent Events body. */
export function sseMessages(body: string): unknown[] {
  return body.split(/\r?\n\r?\n/).flatMap((event) => {
    const data = event.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).replace(/^ /, '')).join('\n');
    if (!data) return [];
    try {
      return [JSON.parse(data)];
    } catch {
      return [];
    }
  });
}
