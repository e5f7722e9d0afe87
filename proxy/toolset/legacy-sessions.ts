// 2025-11-25 clients: `initialize` opens a session of the toolset's own (the SDK's sessionful
// web-standard transport), bound to the toolset and the caller who opened it; its member
// clients (and so the members' upstream sessions) open lazily and close with it. An unknown
// session, or another caller's, answers 404 as the revision says.
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Server } from '@modelcontextprotocol/server';
import type { ToolsetRecord } from '../../contract/toolset-record';
import type { Grant } from './access';
import type { MemberClients } from './member-clients';

/** What a session's server reads on each request: updated from the toolset as it is now. */
export interface SessionContext {
  toolset: ToolsetRecord;
  grant: Grant;
}

interface Session {
  toolsetId: string;
  caller: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  clients: MemberClients;
  context: SessionContext;
}

export interface NewSession {
  clients: MemberClients;
  server: Server;
  context: SessionContext;
}

export class LegacySessions {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly maxSessions = 10_000) {}

  get size(): number {
    return this.sessions.size;
  }

  /** `caller`: who opened it (a session is never another caller's). `open`: the server of a new session. */
  async handle(request: Request, body: unknown, toolsetId: string, caller: string, now: SessionContext, open: () => NewSession): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const session = this.sessions.get(id);
      if (!session || session.toolsetId !== toolsetId || session.caller !== caller) return sessionNotFound();
      // A PATCH of the toolset (members, access) holds for open sessions from their next request.
      session.context.toolset = now.toolset;
      session.context.grant = now.grant;
      return session.transport.handleRequest(request, { parsedBody: body });
    }
    if (this.sessions.size >= this.maxSessions) return rpcError(503, -32000, 'Too many toolset sessions; try again later.');
    const { clients, server, context } = open();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sid) => {
        this.sessions.set(sid, { toolsetId, caller, transport, server, clients, context });
      },
      onsessionclosed: (sid) => this.end(sid),
    });
    transport.onclose = () => {
      if (transport.sessionId) void this.end(transport.sessionId);
      else void clients.close();
    };
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: body });
    // No session came of it (not an initialize, or a refused one): nothing to keep.
    if (!transport.sessionId || !this.sessions.has(transport.sessionId)) await server.close().catch(() => undefined);
    return response;
  }

  /** Sessions of a toolset (list_changed goes to them). */
  serversOf(toolsetId: string): Server[] {
    return [...this.sessions.values()].filter((s) => s.toolsetId === toolsetId).map((s) => s.server);
  }

  /** Sessions whose toolset has this connector as a member. */
  serversHolding(connectorId: string): Server[] {
    return [...this.sessions.values()].filter((s) => s.context.toolset.members.some((m) => m.connector_id === connectorId)).map((s) => s.server);
  }

  /** Ends every session of a toolset (it was deleted). */
  async endToolset(toolsetId: string): Promise<void> {
    await Promise.all([...this.sessions].filter(([, s]) => s.toolsetId === toolsetId).map(([sid]) => this.end(sid)));
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((sid) => this.end(sid)));
  }

  private async end(sid: string): Promise<void> {
    const session = this.sessions.get(sid);
    if (!session) return;
    this.sessions.delete(sid);
    await session.clients.close();
    await session.server.close().catch(() => undefined);
  }
}

function sessionNotFound(): Response {
  return rpcError(404, -32001, 'Session not found');
}

function rpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { status, headers: { 'content-type': 'application/json' } });
}
