// The toolset's MCP endpoint, `{BASE_URL}/api/v1/toolsets/{id}/mcp`, served by the proxy role: the
// same caller check as a connector's MCP path (401 with the RFC 9728 challenge naming the
// toolset's own resource; the owner's rate and stream caps), 404 for a toolset the caller may
// not use, the same framing refusals, and Mcp-Method/Mcp-Name checked against the body (400).
// Then the SDK v2 serves the toolset as one MCP server in either era: 2026-07-28 requests through
// its dual-era entry (strict: createMcpHandler with legacy 'reject'), 2025-11-25 through sessions
// of the toolset's own (legacy-sessions.ts). The caller's credentials stop here.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { OPEN_CALLER, type Caller } from '../../callers/caller';
import type { AddressPolicy } from '../../platform/address-guard';
import type { Logger } from '../../platform/logger';
import { ProblemError } from '../../contract/problem';
import { GateRefusal, type CallerGate } from '../caller-gate';
import { sendProblem } from '../problem-response';
import { FramingRefusal, requestBodyLength } from '../request-framing';
import type { RouteSource } from '../route';
import { checkRpcHeaders, readBody, rpcHeadersOf } from '../rpc-headers';
import { createUpstreamAgents, type UpstreamAgents, type UpstreamPoolOptions } from '../upstream-agents';
import { UpstreamAuth } from '../upstream-auth';
import { TargetPolicy } from '../upstream-policy';
import { grantOf } from './access';
import { LegacySessions } from './legacy-sessions';
import { MemberClients } from './member-clients';
import type { MemberUpstream } from './member-fetch';
import { ToolCatalog } from './tool-catalog';
import { ToolsetAudit, type ToolsetAuditSink, type ToolsetMetrics } from './toolset-audit';
import { ToolsetRecords } from './toolset-records';
import type { ToolsetContext } from './toolset-context';
import { toolsetServer } from './toolset-server';
import { ModernHandlers } from './modern-handlers';
import type { ToolsetSource } from './toolset-source';
import { leaveSignal, webRequest, writeWebResponse } from './web-bridge';

export interface ToolsetEndpointOptions {
  routes: RouteSource;
  source: ToolsetSource;
  callers?: CallerGate;
  policy: AddressPolicy;
  logger: Logger;
  /** The proxy's pools, when it shares them (one set of per-owner pools per process). */
  agents?: UpstreamAgents;
  pool?: UpstreamPoolOptions;
  /** Tools per tools/list page (default 100). */
  pageSize?: number;
  /** How long a member's tool list is reused (default 30 s). */
  listTtlMs?: number;
  audit?: ToolsetAuditSink;
  metrics?: ToolsetMetrics;
}

export interface ToolsetEndpoint {
  handle(req: IncomingMessage, res: ServerResponse, toolsetId: string): void;
  /** A toolset changed or went: the next request reads it again. */
  toolsetChanged(toolsetId: string): void;
  /** A connector changed state (or told us its list changed): its lists go, sessions hear list_changed. */
  memberChanged(connectorId: string): void;
  close(): Promise<void>;
}

const ALLOWED = new Set(['POST', 'GET', 'DELETE']);
const BODY_LIMIT = 4 * 1024 * 1024;
const MAX_SHARED = 1000;

export function createToolsetEndpoint(options: ToolsetEndpointOptions): ToolsetEndpoint {
  const { routes, logger } = options;
  const ownAgents = options.agents ? null : createUpstreamAgents(options.policy, options.pool);
  const upstream: MemberUpstream = { routes, agents: options.agents ?? ownAgents!, targets: new TargetPolicy(options.policy), auth: new UpstreamAuth(routes, logger) };
  const catalog = new ToolCatalog(options.listTtlMs);
  const records = new ToolsetRecords(options.source);
  const sessions = new LegacySessions();
  const shared = new Map<string, MemberClients>(); // 2026-07-28 requests' member clients, per toolset
  const modern = new ModernHandlers(logger);
  const memberChanged = (connectorId: string) => {
    catalog.invalidate(connectorId);
    modern.memberChanged(connectorId);
    for (const server of sessions.serversHolding(connectorId)) void server.sendToolListChanged().catch(() => undefined);
  };
  const newClients = () => new MemberClients(upstream, memberChanged);
  // Bounded like the pools: past MAX_SHARED toolsets, the one unused longest closes its clients.
  const sharedClients = (toolsetId: string) => {
    let clients = shared.get(toolsetId);
    shared.delete(toolsetId);
    shared.set(toolsetId, (clients ??= newClients()));
    if (shared.size > MAX_SHARED) {
      const oldest = shared.keys().next().value!;
      void shared.get(oldest)?.close();
      shared.delete(oldest);
    }
    return clients;
  };

  async function admit(req: IncomingMessage, res: ServerResponse, id: string): Promise<Caller> {
    const gate = options.callers;
    if (!gate?.enabled) return OPEN_CALLER;
    const caller = gate.known(req, id, 'toolsets') ?? (await gate.admit(req, id, 'toolsets'));
    gate.countRequest(caller);
    return caller;
  }

  async function serve(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const caller = await admit(req, res, id);
    const toolset = await records.get(id);
    const grant = toolset && grantOf(caller, toolset);
    if (!toolset || !grant) {
      if (!toolset) void sessions.endToolset(id);
      throw new ProblemError(404, 'No toolset has this id.');
    }
    options.callers?.hold(caller, res);
    const body = req.method === 'POST' ? await readBody(req, BODY_LIMIT) : null;
    if (req.method === 'POST' && body === null) throw new ProblemError(413, `An MCP request body is limited to ${BODY_LIMIT} bytes.`);
    const mirrored = rpcHeadersOf(req);
    const checked = body && mirrored ? checkRpcHeaders(body, mirrored) : null;
    if (checked?.mismatch) throw checked.mismatch;
    const parsed = body ? parseJson(body) : undefined;
    // Watches the exchange until the response closes, then records it.
    if (options.audit || options.metrics) new ToolsetAudit(options.audit, options.metrics, req, res, toolset, caller.subject, parsed, body?.length ?? 0);
    const request = webRequest(req, body, leaveSignal(res));
    const ctx: ToolsetContext = {
      toolset, grant, catalog, routes, source: options.source, logger, pageSize: options.pageSize ?? 100,
      clients: undefined as unknown as MemberClients,
    };
    let response: Response;
    if (req.method !== 'POST' || isLegacy(req, parsed)) {
      response = await sessions.handle(request, parsed, id, caller.subject ?? '', { toolset, grant }, () => {
        ctx.clients = newClients();
        return { clients: ctx.clients, server: toolsetServer(ctx), context: ctx };
      });
    } else {
      ctx.clients = sharedClients(id);
      response = await modern.serve(request, parsed, ctx);
    }
    writeWebResponse(response, res);
  }

  return {
    handle(req, res, toolsetId) {
      if (!ALLOWED.has(req.method ?? '')) return sendProblem(res, new ProblemError(405, 'The MCP endpoint accepts GET, POST, DELETE.'), { allow: 'GET, POST, DELETE' });
      const length = requestBodyLength(req);
      if (length instanceof FramingRefusal) return sendProblem(res, length, { connection: 'close' });
      serve(req, res, toolsetId).catch((err: unknown) => {
        if (err instanceof GateRefusal) return sendProblem(res, err.problem, err.headers);
        if (!(err instanceof ProblemError)) logger.error({ err, toolsetId }, 'toolset request failed');
        sendProblem(res, err instanceof ProblemError ? err : new ProblemError(500, 'The toolset failed to serve the request.'));
      });
    },
    toolsetChanged(toolsetId) {
      records.invalidate(toolsetId);
      const clients = shared.get(toolsetId);
      shared.delete(toolsetId);
      void clients?.close();
      modern.toolsetChanged(toolsetId);
      for (const server of sessions.serversOf(toolsetId)) void server.sendToolListChanged().catch(() => undefined);
    },
    memberChanged,
    async close() {
      await modern.close();
      await sessions.close();
      await Promise.all([...shared.values()].map((c) => c.close()));
      shared.clear();
      ownAgents?.destroy();
    },
  };
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new ProblemError(400, 'The request body is not JSON.');
  }
}

/** Whether the SDK would serve this POST as 2025-era traffic (no per-request envelope claim). */
function isLegacy(req: IncomingMessage, body: unknown): boolean {
  const header = (name: string) => {
    const value = req.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  return classifyInboundRequest({
    httpMethod: 'POST', protocolVersionHeader: header('mcp-protocol-version'), mcpMethodHeader: header('mcp-method'), mcpNameHeader: header('mcp-name'), body,
  }).kind === 'legacy';
}

