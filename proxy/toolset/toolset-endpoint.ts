// The toolset's MCP endpoint, `{BASE_URL}/api/v1/toolsets/{id}/mcp`, served by the proxy role: the
// same caller check as a connector's MCP path (401 with the RFC 9728 challenge naming the
// toolset's own resource; the owner's rate and stream caps), 404 for a toolset the caller may not
// use, the same framing refusals, Mcp-Method/Mcp-Name checked against the body. Then the toolset
// answers as one MCP server in either era — 2026-07-28 requests one by one, 2025-11-25 ones in
// sessions any replica serves (legacy-sessions.ts) — routing each request itself
// (toolset-router.ts) and sending members what is theirs through the proxy's one upstream client.
// The caller's credentials stop here. The service's own errors answer a JSON-RPC request in
// JSON-RPC (problem-response.ts, docs/mcp-errors.md).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OPEN_CALLER, type Caller } from '../../callers/caller';
import type { AddressPolicy } from '../../platform/address-guard';
import type { Logger } from '../../platform/logger';
import { ProblemError } from '../../contract/problem';
import type { ApprovalRule } from '../../contract/approvals';
import { GateRefusal, type CallerGate } from '../caller-gate';
import { rpcRequestIn, sendMcpProblem, sendProblem, unreadRpcRequest, type RpcRequest } from '../problem-response';
import { FramingRefusal, requestBodyLength } from '../request-framing';
import type { RouteSource } from '../route';
import { checkRpcHeaders, readBody, rpcHeadersOf } from '../rpc-headers';
import type { UpstreamPoolOptions } from '../upstream-agents';
import { UpstreamClient } from '../upstream-client';
import { grantOf } from './access';
import { CallerMemberSessions } from './caller-member-sessions';
import { ChangeWatch } from './change-watch';
import { DEFAULT_SESSION_LIMITS, LegacySessions, type SessionLimits } from './legacy-sessions';
import { MemberEras } from './member-eras';
import { SseBridge } from '../legacy-sse/sse-bridge';
import { SseMembers } from './sse-members';
import { MemberLink } from './member-link';
import { MemberListeners } from './member-listeners';
import { memorySessionStore } from './memory-session-store';
import type { SecretBox } from '../../platform/secret-box';
import { memoryAnswerStore } from './input-bridge';
import { SessionStreams } from './session-streams';
import { ToolCatalog } from './tool-catalog';
import { ToolsetAudit, type ToolsetAuditSink, type ToolsetMetrics } from './toolset-audit';
import type { ToolsetDeps, ToolsetTaskDeps } from './toolset-context';
import { ToolsetExchange } from './toolset-exchange';
import { ToolsetRecords } from './toolset-records';
import type { ToolsetSource } from './toolset-source';

export interface ToolsetEndpointOptions {
  routes: RouteSource;
  source: ToolsetSource;
  callers?: CallerGate;
  policy: AddressPolicy;
  logger: Logger;
  /** The proxy's upstream client, shared with the connector relay (absent: one of the endpoint's own). */
  upstream?: UpstreamClient;
  pool?: UpstreamPoolOptions;
  /** Tools per tools/list page (default 100). */
  pageSize?: number;
  /** Tools held for approval (CONNECTOR__APPROVAL_TOOLS): refused here, since only a connector's path holds them. */
  approvals?: readonly ApprovalRule[];
  /** How long a member's tool list is reused (default 30 s). */
  listTtlMs?: number;
  /** Sessions per caller and their idle timeout (DEFAULT_SESSION_LIMITS). */
  sessions?: Partial<SessionLimits>;
  /** How often a replica checks what the streams it holds depend on (default 5 s). */
  watchIntervalMs?: number;
  audit?: ToolsetAuditSink;
  metrics?: ToolsetMetrics;
  /** The service's tasks (absent: the toolsets offer none). */
  tasks?: ToolsetTaskDeps;
  /** Seals what waits in the database for another replica (absent: 2026 members may not ask 2025 clients for input). */
  secrets?: SecretBox;
}

export interface ToolsetEndpoint {
  handle(req: IncomingMessage, res: ServerResponse, toolsetId: string): void;
  /** A toolset changed or went: the next request reads it again, its streams hear list_changed. */
  toolsetChanged(toolsetId: string): void;
  /** A connector changed state (or told us its list changed): its lists go, streams hear list_changed. */
  memberChanged(connectorId: string): void;
  close(): Promise<void>;
}

const ALLOWED = new Set(['POST', 'GET', 'DELETE']);
const BODY_LIMIT = 4 * 1024 * 1024;
const SWEEP_MS = 5 * 60_000;

export function createToolsetEndpoint(options: ToolsetEndpointOptions): ToolsetEndpoint {
  const { routes, logger } = options;
  const upstream = options.upstream ?? new UpstreamClient({ routes, policy: options.policy, logger, pool: options.pool });
  const eras = new MemberEras(upstream);
  // Members of the HTTP+SSE transport get upstream sessions of their own, apart from callers' of the connector.
  const bridge = new SseBridge({ upstream, logger, bodyLimitBytes: BODY_LIMIT });
  const sse = new SseMembers(bridge);
  const link = new MemberLink(upstream, eras, sse);
  const catalog = new ToolCatalog(options.listTtlMs);
  const records = new ToolsetRecords(options.source);
  const store = options.source.sessions ?? memorySessionStore();
  const sessions = new LegacySessions(store, link, routes, logger, { ...DEFAULT_SESSION_LIMITS, ...options.sessions });
  const watchMs = options.watchIntervalMs ?? 5000;
  const watch = new ChangeWatch(async (toolsetId) => {
    const toolset = await records.get(toolsetId);
    if (!toolset) return null;
    const members = toolset.members.map((m) => m.connector_id);
    const found = await Promise.all(members.map((id) => routes.get(id).catch(() => null)));
    const states = found.map((route) => (route?.kind === 'connected' ? `${route.owner ?? ''} ${route.target}` : route?.kind === 'not_connected' ? route.state : route?.kind ?? '?'));
    const listen = members.filter((_, i) => found[i]?.kind === 'connected' && (found[i] as { owner?: string | null }).owner === toolset.created_by);
    return { fingerprint: JSON.stringify([toolset.updated_at, states]), members, listen };
  }, watchMs);
  const listeners = new MemberListeners(upstream, eras, routes, (connectorId) => {
    catalog.invalidate(connectorId);
    watch.memberChanged(connectorId);
  }, logger, sse);
  watch.onListen = (connectorIds) => listeners.keep(connectorIds);
  const streams = new SessionStreams({ store, sessions, link, routes, watch, logger, pollMs: watchMs });
  sessions.onMemberSession = (session) => streams.memberOpened(session);
  const callerSessions = new CallerMemberSessions((connectorId, session) => void routes.get(connectorId).then((route) => {
    if (route.kind === 'connected') return link.close({ connectorId, route }, session);
  }, () => undefined));
  const deps: ToolsetDeps = { routes, source: options.source, link, catalog, logger, pageSize: options.pageSize ?? 100, tasks: options.tasks,
    inputBridge: options.secrets && { answers: options.source.answers ?? memoryAnswerStore(), secrets: options.secrets }, approvals: options.approvals ?? [],
  };
  const sweeping = setInterval(() => {
    void sessions.sweep().catch((err: unknown) => logger.warn({ err }, 'expired toolset sessions could not be removed'));
    void options.source.answers?.sweep?.().catch((err: unknown) => logger.warn({ err }, 'answers nobody took could not be removed'));
  }, SWEEP_MS).unref();

  async function admit(req: IncomingMessage, id: string): Promise<Caller> {
    const gate = options.callers;
    if (!gate?.enabled) return OPEN_CALLER;
    return gate.known(req, id, 'toolsets') ?? (await gate.admit(req, id, 'toolsets'));
  }

  /** What to answer a refusal with: the request's id once its body is read; an unauthenticated caller's is never read. */
  async function serve(req: IncomingMessage, res: ServerResponse, id: string, answer: { rpc: RpcRequest | null }): Promise<void> {
    const caller = await admit(req, id);
    options.callers?.countRequest(caller);
    const body = req.method === 'POST' ? await readBody(req, BODY_LIMIT) : null;
    if (req.method === 'POST' && body === null) throw new ProblemError(413, `An MCP request body is limited to ${BODY_LIMIT} bytes.`);
    if (body) answer.rpc = null; // until the body shows it is JSON-RPC
    const parsed = body ? parseJson(body) : undefined;
    if (body) answer.rpc = rpcRequestIn(parsed);
    const toolset = await records.get(id);
    const grant = toolset && grantOf(caller, toolset);
    if (!toolset || !grant) throw new ProblemError(404, 'No toolset has this id.');
    options.callers?.hold(caller, res);
    const mirrored = rpcHeadersOf(req);
    const checked = body && mirrored ? checkRpcHeaders(body, mirrored) : null;
    if (checked?.mismatch) throw checked.mismatch;
    // Watches the exchange until the response closes, then records it.
    if (options.audit || options.metrics) new ToolsetAudit(options.audit, options.metrics, req, res, toolset, caller.subject, parsed, body?.length ?? 0);
    await new ToolsetExchange({ deps, sessions, streams, watch, callerSessions }, req, res, toolset, caller, grant).serve(parsed);
  }

  return {
    handle(req, res, toolsetId) {
      if (!ALLOWED.has(req.method ?? '')) return sendProblem(res, new ProblemError(405, 'The MCP endpoint accepts GET, POST, DELETE.'), { allow: 'GET, POST, DELETE' });
      const length = requestBodyLength(req);
      if (length instanceof FramingRefusal) return sendMcpProblem(res, length, { connection: 'close' }, unreadRpcRequest(req));
      const answer = { rpc: unreadRpcRequest(req) };
      serve(req, res, toolsetId, answer).catch((err: unknown) => {
        if (err instanceof GateRefusal) return sendMcpProblem(res, err.problem, err.headers, answer.rpc);
        if (!(err instanceof ProblemError)) logger.error({ err, toolsetId }, 'toolset request failed');
        const problem = err instanceof ProblemError ? err : new ProblemError(500, 'The toolset failed to serve the request.');
        sendMcpProblem(res, problem, problem.status === 503 ? { 'retry-after': '1' } : {}, answer.rpc);
      });
    },
    toolsetChanged(toolsetId) {
      records.invalidate(toolsetId);
      callerSessions.forgetToolset(toolsetId);
      watch.toolsetChanged(toolsetId);
    },
    memberChanged(connectorId) {
      catalog.invalidate(connectorId);
      if (bridge.holds(connectorId)) routes.get(connectorId).then((route) => bridge.settle(connectorId, route), () => bridge.forget(connectorId));
      watch.memberChanged(connectorId);
    },
    async close() {
      clearInterval(sweeping);
      streams.close();
      watch.stop();
      listeners.close();
      bridge.close();
      if (!options.upstream) upstream.destroy();
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
