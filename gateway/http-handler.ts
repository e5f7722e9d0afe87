// The gateway's HTTP surface: MCP Streamable HTTP at /mcp (and /), health at /healthz. A POST that
// may be a 2026-07-28 one is sorted by the SDK's own classifier: 2026-07-28 requests (and those it
// refuses) go to the sessionless endpoint; 2025 ones to their session, looked up or created here
// (everything inside a session is the SDK transport's job).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../platform/logger';
import type { RequestCheck } from './gateway-auth';
import type { LazyModernEndpoint } from './lazy-modern';
import { mightBeModern } from './modern-wire';
import type { Router } from './router';
import { onceClosed } from '../platform/response-closed';

export interface GatewayHealth {
  ok: boolean;
  state: 'starting' | 'ready' | 'exited' | 'closed';
  reason?: string;
  sessions: number;
}

export interface HttpHandlerDeps {
  router: Router;
  modern: LazyModernEndpoint;
  health: () => GatewayHealth;
  logger: Logger;
  /** Whether a request may reach the MCP endpoint (the gateway secret); /healthz is open. */
  authorized: RequestCheck;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const MCP_PATHS = new Set(['/mcp', '/']);
const SESSIONS_RETRY_AFTER_SECONDS = 5;

export function createHttpHandler(deps: HttpHandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    route(deps, req, res).catch((error: unknown) => {
      deps.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'request failed');
      if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error');
      else res.destroy();
    });
  };
}

async function route(deps: HttpHandlerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://gateway.invalid').pathname;
  if (path === '/healthz') return health(deps, req, res);
  if (MCP_PATHS.has(path)) return mcp(deps, req, res);
  json(res, 404, { error: 'not found' });
}

function health(deps: HttpHandlerDeps, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return json(res, 405, { error: 'method not allowed' });
  }
  const state = deps.health();
  json(res, state.ok ? 200 : 503, { status: state.ok ? 'ok' : 'unavailable', ...state });
}

async function mcp(deps: HttpHandlerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // First, so that a stranger learns nothing, not even the server's state.
  if (!deps.authorized(req)) return rpcError(res, 401, -32000, 'Unauthorized: only the connector registry may use this gateway');
  const state = deps.health();
  if (state.state === 'exited' || state.state === 'closed') {
    return rpcError(res, 503, -32000, state.reason ?? 'stdio server unavailable');
  }
  const method = req.method ?? 'GET';
  if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
    res.setHeader('Allow', 'GET, POST, DELETE');
    return rpcError(res, 405, -32000, 'Method not allowed.');
  }
  const body = method === 'POST' ? await readJson(req, res) : undefined;
  if (body === INVALID) return;
  if (method === 'POST' && mightBeModern(header(req, 'mcp-protocol-version'), body) && await deps.modern.serveIfModern(req, res, body)) return;
  const sessionId = req.headers['mcp-session-id'];
  let session;
  let opening = false;
  if (typeof sessionId === 'string') {
    session = deps.router.sessions.get(sessionId);
    if (!session) return rpcError(res, 404, -32001, 'Session not found');
  } else if (method === 'POST' && isInitializeRequest(body)) {
    session = deps.router.openSession();
    if (!session) return tooManySessions(res, deps.router.maxSessions);
    opening = true;
  } else {
    return rpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
  }
  session.trackExchange(method === 'GET', (ended) => onceClosed(res, ended));
  try {
    await session.transport.handleRequest(req, res, body);
  } finally {
    if (opening) deps.router.openingSettled(session);
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** Sessions end on DELETE, idle, or soon after an initialize with nothing after it: worth a retry. */
function tooManySessions(res: ServerResponse, max: number): void {
  res.setHeader('Retry-After', String(SESSIONS_RETRY_AFTER_SECONDS));
  rpcError(res, 503, -32000, `Too many sessions: this gateway serves at most ${max} at once; try again later`);
}

const INVALID = Symbol('invalid body');

/** The parsed body, or INVALID after answering 400/413 itself. */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      rpcError(res, 413, -32000, `Payload Too Large: Request body must not exceed ${MAX_BODY_BYTES} bytes`);
      return INVALID;
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    rpcError(res, 400, -32700, 'Parse error: Invalid JSON');
    return INVALID;
  }
}

/** Errors in the shape the SDK transport uses for its own HTTP errors. */
function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  json(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}
