// 2026-07-28 clients: no session, one POST per request, each carrying its own `_meta` envelope.
// The SDK's dual-era HTTP entry (createMcpHandler, strict: legacy traffic never reaches it) does
// what the revision asks of a server: the validation ladder (envelope, MCP-Protocol-Version,
// Mcp-Method/Mcp-Name against the body: 400 with -32020 on disagreement), server/discover, result
// stamping and cache hints, subscriptions/listen streams. Each request gets a fresh low-level
// Server wearing the stdio server's identity and capabilities, whose fallback handler relays the
// request to the stdio server (under an upstream id, like every other request).
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  classifyInboundRequest,
  createMcpHandler,
  METHOD_NOT_FOUND,
  Server,
  type JSONRPCRequest,
  type McpHttpHandler,
  type Result,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { isJSONRPCRequest, type Progress } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../platform/logger';
import { writeWebResponse } from '../platform/web-response';
import { progressTokenOf } from './jsonrpc';
import type { Upstream } from './upstream';

export class ModernEndpoint {
  private readonly handler: McpHttpHandler;
  /** The request as the client sent it: the SDK hands handlers a copy without the envelope. */
  private readonly raw = new WeakMap<Request, JSONRPCRequest>();

  constructor(private readonly upstream: Upstream, logger: Logger) {
    this.handler = createMcpHandler(async ({ requestInfo }) => this.serverFor(requestInfo), {
      legacy: 'reject',
      onerror: (error) => logger.debug({ err: error.message }, '2026-07-28 request refused or failed'),
    });
  }

  /** Serves one POST whose body was already read (and parsed) by the gateway. */
  async serve(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const request = new Request(new URL(req.url ?? '/', 'http://gateway.invalid'), {
      method: 'POST', headers: headersOf(req), body: JSON.stringify(body), signal: gone.signal,
    });
    if (isJSONRPCRequest(body)) this.raw.set(request, body);
    const response = await this.handler.fetch(request, { parsedBody: body });
    writeWebResponse(await methodNotFoundAs404(response), res);
  }

  /** Change news from the stdio server, for the open subscriptions/listen streams. */
  get notify(): McpHttpHandler['notify'] {
    return this.handler.notify;
  }

  close(): Promise<void> {
    return this.handler.close();
  }

  private async serverFor(request: Request | undefined): Promise<Server> {
    const child = await this.upstream.ready;
    const server = new Server(child.serverInfo, {
      // The same JSON, typed by the v1 package on the stdio side and the v2 one here.
      capabilities: child.capabilities as ServerCapabilities,
      ...(child.instructions === undefined ? {} : { instructions: child.instructions }),
    });
    // The stdio server answers logging/setLevel itself, like any other request.
    server.removeRequestHandler('logging/setLevel');
    const raw = request ? this.raw.get(request) : undefined;
    server.fallbackRequestHandler = (lifted, ctx) => this.relay(raw ?? lifted, lifted, ctx);
    return server;
  }

  /**
   * A 2026-07-28 server gets the request as sent (envelope, inputResponses, requestState); a
   * 2025 one gets it without the envelope, inside the session the gateway holds with it.
   */
  private relay(raw: JSONRPCRequest, lifted: JSONRPCRequest, ctx: ServerContext): Promise<Result> {
    const modern = this.upstream.server?.era === 'modern';
    const params = (modern ? raw.params : lifted.params) as Record<string, unknown> | undefined;
    const token = progressTokenOf(raw);
    const onprogress = token === undefined ? undefined
      : (progress: Progress) => void ctx.mcpReq.notify({ method: 'notifications/progress', params: { ...progress, progressToken: token } });
    return this.upstream.request(lifted.method, params, { onprogress, signal: ctx.mcpReq.signal, relayed: true });
  }
}

/**
 * 2026-07-28 answers an unknown method with HTTP 404. The SDK does so for methods it knows to be
 * unknown; here the stdio server is the one that decides, so its -32601 arrives as a handler's
 * error, on a 200. Such an answer is a small JSON body (nothing precedes it on a stream).
 */
async function methodNotFoundAs404(response: Response): Promise<Response> {
  if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('application/json')) return response;
  const text = await response.text();
  let code: unknown;
  try {
    code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
  } catch {
    code = undefined;
  }
  return new Response(text, { status: code === METHOD_NOT_FOUND ? 404 : 200, headers: response.headers });
}

/** Whether the SDK would serve this POST as 2025-era traffic (no per-request envelope claim). */
export function isLegacyPost(req: IncomingMessage, body: unknown): boolean {
  const header = (name: string) => {
    const value = req.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: header('mcp-protocol-version'),
    mcpMethodHeader: header('mcp-method'),
    mcpNameHeader: header('mcp-name'),
    body,
  });
  return outcome.kind === 'legacy';
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}
