// The proxy role, built from configuration: kept apart from roles.ts so that a proxy process
// (and the proxy bench) loads neither the Temporal worker nor the API.
import type { Client } from '@temporalio/client';
import type { Config } from '../config/config';
import type { Logger } from '../platform/logger';
import type { SecretBox } from '../platform/secret-box';
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
import type { ToolsetEndpoint } from '../proxy/toolset/toolset-endpoint';
import { lazyToolsetEndpoint } from '../proxy/toolset/lazy-toolset-endpoint';
import type { ToolsetSource } from '../proxy/toolset/toolset-source';
import type { ConnectorStore } from '../store/connector-store';
import type { ToolsetStore } from '../store/toolset-store';
import type { ToolsetSessionStore } from '../store/toolset-session-store';
import type { ProcessMetrics } from './metrics';
import type { Tracing } from './tracing';

export const policyOf = (config: Config) => ({ blockPrivateNetworks: config.blockPrivateNetworks, allowedPrivateNetworks: config.allowedPrivateNetworks });

/** The caller check of the API and the proxy; the identity provider is reached through the address guard. */
export function authenticatorOf(config: Config) {
  return createAuthenticator(config.callers, createGuardedFetch(policyOf(config), { timeoutMs: 5_000 }));
}

/**
 * The per-owner rate limit of one half (REST API or MCP path) of this process: each keeps its own
 * buckets, so an owner may use the rate on each, and on each process (README).
 */
export function rateLimitOf(config: Config): OwnerRateLimit | null {
  return config.callers.rateLimitPerOwner ? new OwnerRateLimit(config.callers.rateLimitPerOwner) : null;
}

/** The Origin and Host rules every path of the HTTP server applies. */
export function originPolicyOf(config: Config): OriginPolicy {
  return { baseUrl: config.baseUrl, allowedOrigins: config.callers.allowedOrigins, authEnabled: config.callers.enabled };
}

/** Everything of the proxy that configuration decides, for any route source (the bench passes a static one). */
export function proxyOptionsOf(config: Config, logger: Logger, routes: RouteSource, metrics?: ProcessMetrics): McpProxyOptions {
  const callers = new CallerGate({
    authenticator: authenticatorOf(config), baseUrl: config.baseUrl, maxStreamsPerOwner: config.callers.maxStreamsPerOwner,
    rateLimit: rateLimitOf(config), scopes: config.callers.jwt?.scopes ?? [],
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
}

/** The toolsets, their members' records and their 2025 sessions, from the database. */
export function toolsetSourceOf(mongo: { store: ConnectorStore; toolsets: ToolsetStore; toolsetSessions: ToolsetSessionStore }): ToolsetSource {
  return {
    toolset: (id) => mongo.toolsets.get(id),
    sessions: mongo.toolsetSessions,
    async memberStatus(connectorId) {
      const record = await mongo.store.get(connectorId);
      return record && { state: record.state, disconnect_reason: record.disconnect_reason, authorization_url: record.auth_request?.authorization_endpoint ?? null };
    },
  };
}

/** The MCP proxy; `stop` closes it and writes the calls still queued (before the database closes). */
export function buildProxy(deps: ProxyRoleDeps): McpProxy & { stop(): Promise<void>; toolsets?: ToolsetEndpoint } {
  const routes = new RouteCache(workflowRoutes(deps.temporal, deps.secrets), {
    ttlMs: deps.config.routeCacheTtlMs, loadTimeoutMs: deps.config.routeLoadTimeoutMs,
  });
  const audit = deps.callStore && auditQueueOf(deps.config, deps.logger, deps.callStore, deps.metrics);
  const options = proxyOptionsOf(deps.config, deps.logger, routes, deps.metrics);
  const proxy = createMcpProxy({ ...options, tracer: deps.tracing?.tracer, audit });
  // The toolsets' MCP path: the same routes (and so the same invalidations), caller gate, audit and upstream client.
  const toolsets = deps.toolsetSource && lazyToolsetEndpoint({
    routes, source: deps.toolsetSource, callers: options.callers, policy: options.policy, logger: deps.logger, upstream: proxy.upstream, audit, metrics: deps.metrics,
  });
  return {
    ...proxy,
    toolsets,
    async stop() {
      await toolsets?.close();
      proxy.close();
      await audit?.close();
    },
  };
}

/** The per-call audit's queue in front of its store, sized by configuration. */
export function auditQueueOf(config: Config, logger: Logger, store: CallAuditStore, metrics?: ProcessMetrics): CallAuditQueue {
  return new CallAuditQueue({ write: (entries) => store.insert(entries), capacity: config.callAudit.queueCapacity, logger, metrics });
}
