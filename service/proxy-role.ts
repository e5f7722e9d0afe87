// The proxy role, built from configuration: kept apart from roles.ts so that a proxy process
// (and the proxy bench) loads neither the Temporal worker nor the API.
import type { Client } from '@temporalio/client';
import type { Config } from '../config/config';
import type { Logger } from '../platform/logger';
import type { SecretBox } from '../platform/secret-box';
import { authorizationUrlOf } from '../contract/authorization-url';
import { createGuardedFetch } from '../platform/guarded-fetch';
import { createAuthenticator } from '../callers/authenticator';
import type { OriginPolicy } from '../callers/request-origin';
import { OwnerRateLimit } from '../callers/owner-rate-limit';
import { CallerGate } from '../proxy/caller-gate';
import { createMcpProxy, type McpProxy, type McpProxyOptions } from '../proxy/mcp-proxy';
import { CallAuditQueue } from '../proxy/call-audit-queue';
import type { CallAuditStore } from '../store/call-audit-store';
import { RouteCache } from '../proxy/route-cache';
import type { RouteSource } from '../proxy/route';
import { workflowRoutes } from '../proxy/workflow-routes';
import { GatewayTasks } from '../proxy/tasks/gateway-tasks';
import type { UpstreamClient } from '../proxy/upstream-client';

/** How often a client of a task the service owns is told to poll it. */
const TASK_POLL_INTERVAL_MS = 500;
import type { ToolsetEndpoint } from '../proxy/toolset/toolset-endpoint';
import { lazyToolsetEndpoint } from '../proxy/toolset/lazy-toolset-endpoint';
import type { ToolsetSource } from '../proxy/toolset/toolset-source';
import type { ChangeFeed } from '../store/change-feed';
import type { ConnectorStore } from '../store/connector-store';
import { startChangeListener, type ChangeListener } from './change-listener';
import type { SharedLimits } from './shared-limits';
import type { ToolsetStore } from '../store/toolset-store';
import type { ToolsetInputStore } from '../store/toolset-input-store';
import type { ToolsetSessionStore } from '../store/toolset-session-store';
import type { ProcessMetrics } from './metrics';
import type { Tracing } from './tracing';

export const policyOf = (config: Config) => ({ blockPrivateNetworks: config.blockPrivateNetworks, allowedPrivateNetworks: config.allowedPrivateNetworks });

/** The caller check of the API and the proxy; the identity provider is reached through the address guard. */
export function authenticatorOf(config: Config) {
  return createAuthenticator(config.callers, createGuardedFetch(policyOf(config), { timeoutMs: 5_000 }));
}

/**
 * The per-owner rate limit of one half (REST API or MCP path): each has its own buckets, so an
 * owner may use the rate on each; shared by every process when `shared` is given, else this
 * process's own (the embedded stack, one process).
 */
export function rateLimitOf(config: Config, scope: 'api' | 'mcp', shared?: SharedLimits): OwnerRateLimit | null {
  if (shared) return shared.rateLimit(scope);
  return config.callers.rateLimitPerOwner ? new OwnerRateLimit(config.callers.rateLimitPerOwner) : null;
}

/** The Origin and Host rules every path of the HTTP server applies. */
export function originPolicyOf(config: Config): OriginPolicy {
  return { baseUrl: config.baseUrl, allowedOrigins: config.callers.allowedOrigins, authEnabled: config.callers.enabled };
}

/**
 * Everything of the proxy that configuration decides, for any route source (the bench passes a
 * static one); with `shared`, the per-owner limits hold across processes.
 */
export function proxyOptionsOf(config: Config, logger: Logger, routes: RouteSource, metrics?: ProcessMetrics, shared?: SharedLimits): McpProxyOptions & { callers: CallerGate } {
  const callers = new CallerGate({
    authenticator: authenticatorOf(config), baseUrl: config.baseUrl, maxStreamsPerOwner: config.callers.maxStreamsPerOwner,
    rateLimit: rateLimitOf(config, 'mcp', shared), streams: shared?.streams(), scopes: config.callers.jwt?.scopes ?? [],
  });
  return { routes, callers, policy: policyOf(config), logger, metrics, pool: { maxSockets: config.upstreamMaxSockets } };
}

export interface ProxyRoleDeps {
  config: Config;
  logger: Logger;
  secrets: SecretBox;
  temporal: Client;
  metrics?: ProcessMetrics;
  /** The process's traces; null or absent: off. */
  tracing?: Tracing | null;
  /** Where the per-call audit goes, through a bounded queue; absent: no audit. */
  callStore?: CallAuditStore;
  /** Where toolsets are read (absent: the toolsets' MCP path is not served). */
  toolsetSource?: ToolsetSource;
  /** The per-owner limits shared with the other processes (absent: this process's own). */
  limits?: SharedLimits;
}

/** The toolsets, their members' records and their 2025 sessions, from the database. */
export function toolsetSourceOf(mongo: { store: ConnectorStore; toolsets: ToolsetStore; toolsetSessions: ToolsetSessionStore; toolsetInputs: ToolsetInputStore }): ToolsetSource {
  return {
    toolset: (id) => mongo.toolsets.get(id),
    sessions: mongo.toolsetSessions,
    answers: mongo.toolsetInputs,
    async memberStatus(connectorId) {
      const record = await mongo.store.get(connectorId);
      return record && { state: record.state, disconnect_reason: record.disconnect_reason, authorization_url: authorizationUrlOf(record.auth_request) };
    },
  };
}

export type ProxyRole = McpProxy & {
  stop(): Promise<void>;
  toolsets?: ToolsetEndpoint;
  /** Forget every route (changes were missed): each is loaded again at its next request. */
  forgetRoutes(): void;
};

/** The MCP proxy; `stop` closes it and writes the calls still queued (before the database closes). */
export function buildProxy(deps: ProxyRoleDeps): ProxyRole {
  const routes = new RouteCache(workflowRoutes(deps.temporal, deps.secrets), {
    ttlMs: deps.config.routeCacheTtlMs, loadTimeoutMs: deps.config.routeLoadTimeoutMs,
  });
  const audit = deps.callStore && auditQueueOf(deps.config, deps.logger, deps.callStore, deps.metrics);
  const options = proxyOptionsOf(deps.config, deps.logger, routes, deps.metrics, deps.limits);
  const { tasks: taskSettings, temporal: { taskQueue } } = deps.config;
  const tasks = (upstream: UpstreamClient) => new GatewayTasks({
    temporal: deps.temporal, taskQueue, secrets: deps.secrets, upstream, logger: deps.logger,
    settings: { ...taskSettings, pollIntervalMs: TASK_POLL_INTERVAL_MS, baseUrl: deps.config.baseUrl },
  });
  const proxy = createMcpProxy({ ...options, tracer: deps.tracing?.tracer, audit, tasks });
  // The toolsets' MCP path: the same routes (and so the same invalidations), caller gate, audit and upstream client.
  const toolsets = deps.toolsetSource && lazyToolsetEndpoint({
    routes, source: deps.toolsetSource, approvals: taskSettings.approvals, callers: options.callers, policy: options.policy, logger: deps.logger, upstream: proxy.upstream, audit, metrics: deps.metrics,
    tasks: proxy.tasks && { gateway: proxy.tasks, secrets: deps.secrets }, secrets: deps.secrets,
  });
  return {
    ...proxy,
    toolsets,
    forgetRoutes: () => routes.clear(),
    async stop() {
      await toolsets?.close();
      proxy.close();
      await options.callers.close();
      await audit?.close();
    },
  };
}

/**
 * How often a proxy process reads the change feed: the most a change made elsewhere goes unseen,
 * besides one route query. Each read of an idle feed costs about 1.3 ms of the proxy's CPU and
 * 1.1 ms of FerretDB's (measured at 100 ms: 2.5% of a core between them; at 250 ms, 1%).
 */
export const CHANGE_POLL_MS = 200;

/** The proxy's caches forget what the change feed names, as other processes make the changes. */
export function listenForChanges(proxy: ProxyRole, feed: Pick<ChangeFeed, 'newest' | 'after'>, logger: Logger, intervalMs = CHANGE_POLL_MS): ChangeListener {
  return startChangeListener({
    feed, intervalMs, logger,
    forget({ kind, id }) {
      if (kind === 'toolset') return proxy.toolsets?.toolsetChanged(id);
      proxy.invalidate(id);
      proxy.toolsets?.memberChanged(id);
    },
    forgetAll: () => proxy.forgetRoutes(),
  });
}

/** The per-call audit's queue in front of its store, sized by configuration. */
export function auditQueueOf(config: Config, logger: Logger, store: CallAuditStore, metrics?: ProcessMetrics): CallAuditQueue {
  return new CallAuditQueue({
    write: (entries) => store.insert(entries),
    writeServerTask: (entry) => store.appendServerTask(entry),
    capacity: config.callAudit.queueCapacity, logger, metrics,
  });
}
