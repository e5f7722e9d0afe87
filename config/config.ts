// Configuration from environment variables, validated once at start-up. A bad value stops the
// process with a message naming the variable.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { parseNetworks } from '../platform/address-guard';
import { DEFAULT_KUBE_PROXY_NAMESPACE_SELECTOR, DEFAULT_KUBE_PROXY_SELECTOR, parseLabelSelector } from '../platform/kube-labels';
import { parsePresets, PresetConfigError } from '../catalog/presets';
import { parseRegistryConfig, RegistryConfigError, type RegistryConfig } from '../catalog/registry-config';
import type { Preset } from '../contract/schemas';
import type { TaskSupport } from '../contract/tool-tasks';
import { MAX_WORKFLOW_SHARDS } from './workflow-shards';
import { ApprovalRulesSchema, type ApprovalRule } from '../contract/approvals';
import { DEFAULT_MIN_REFRESH_INTERVAL_SECONDS, DEFAULT_REFRESH_SKEW_SECONDS } from '../contract/token-renewal';
import { parseKey } from '../platform/secret-box';
import { DEFAULT_GATEWAY_MAX_SESSIONS, type ServerLimits } from '../platform/server-limits';
import {
  DEFAULT_KUBE_API_SERVER_PORTS, DEFAULT_KUBE_DNS_CIDRS, DEFAULT_KUBE_DNS_NAMESPACE_SELECTOR, DEFAULT_KUBE_DNS_SELECTOR, checkWorkloadNetworks,
  parsePorts, type WorkloadEgress,
} from '../platform/workload-egress';

/**
 * The gateway image the Kubernetes runtime runs beside each stdio server, pinned to this release
 * (package.json's version, the chart's appVersion): a moving tag would let a rebuilt image change
 * what runs next to every token without a release (test/deploy/helm-chart.test.ts holds the three equal).
 */
export const DEFAULT_GATEWAY_IMAGE = 'connector-registry-gateway:0.1.0';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => ['true', '1', 'yes'].includes(v));

/** CONNECTOR__API_KEYS: static keys, stored as the hex SHA-256 of the key. */
export const ApiKeysSchema = z.array(z.strictObject({
  subject: z.string().min(1).max(256),
  sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be the hex SHA-256 of the key'),
  admin: z.boolean().default(false),
}));
export type ApiKeyEntry = z.infer<typeof ApiKeysSchema>[number];


/**
 * What one cached connector workflow holds in the worker's memory, in KB (its workflow context,
 * state and the SDK's run bookkeeping). Measured with bench/scale.ts at 600 connectors, a cache
 * of 30 against one of 400: RSS 653 against 764 MB, V8 heap used 132 against 261 MB, so 300 to
 * 350 KB a cached workflow; rounded up.
 */
export const CACHED_WORKFLOW_KB = 400;

/**
 * CONNECTOR__WORKER_MEMORY_BUDGET_MB: the memory the worker may spend on cached workflows, so
 * that its memory is bounded by configuration and not by the number of connectors. The SDK's own
 * default grows with the heap limit (thousands of workflows on a large machine).
 */
export function cachedWorkflowsFor(budgetMb: number): number {
  return Math.max(10, Math.floor((budgetMb * 1024) / CACHED_WORKFLOW_KB));
}

/**
 * Above the 16-bit ids of ordinary accounts (and of most distributions' subuid ranges, which start
 * at 100000 and span 65536), and 65536 wide: room for as many local servers as any one machine runs.
 */
export const DEFAULT_STDIO_UID_RANGE = '200000-265535';

export const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  CONNECTOR__METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  TEMPORAL_ADDRESS: z.string().regex(/^[^\s:]+:\d+$/, 'must be host:port').optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  CONNECTOR__TASK_QUEUE: z.string().min(1).default('connectors'),
  CONNECTOR__WORKFLOW_SHARDS: z.coerce.number().int().min(1).max(MAX_WORKFLOW_SHARDS).default(1),
  // The names Temporal's own clients use (envconfig), so one set of variables serves both.
  TEMPORAL_TLS: bool.optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  CONNECTOR__MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(1).max(100_000).optional(),
  CONNECTOR__TEMPORAL_UI: bool.default(false),
  CONNECTOR__WORKER_MEMORY_BUDGET_MB: z.coerce.number().int().min(16).max(1_048_576).default(64),
  MONGODB_URI: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URI').optional(),
  MONGODB_DATABASE: z.string().min(1).default('connector_registry'),
  CONNECTOR__PRESETS: z.string().optional(),
  CONNECTOR__REGISTRY_URL: z.string().optional(),
  CONNECTOR__REGISTRY_SERVERS: z.string().optional(),
  CONNECTOR__REGISTRY_SYNC_MINUTES: z.string().optional(),
  CONNECTOR__ENCRYPTION_KEY: z.string().optional(),
  CONNECTOR__BLOCK_PRIVATE_NETWORKS: bool.optional(),
  CONNECTOR__ALLOWED_PRIVATE_NETWORKS: z.string().optional(),
  CONNECTOR__CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  CONNECTOR__AUTH_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(86_400).default(600),
  CONNECTOR__REFRESH_SKEW_SECONDS: z.coerce.number().int().min(0).max(86_400).default(DEFAULT_REFRESH_SKEW_SECONDS),
  CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(3_600).default(DEFAULT_MIN_REFRESH_INTERVAL_SECONDS),
  CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE: z.string().regex(/^\//, 'must be an absolute path').optional(),
  CONNECTOR__UPSTREAM_DPOP: z.enum(['auto', 'off']).default('auto'),
  // A worker replays a run's whole history whenever the workflow is not in its cache (most renewals
  // once connectors outnumber the cache, and every connector after a restart), at about 0.75 ms of
  // CPU an event: short runs keep that cost flat as connectors age (bench:replay, docs/scale.md).
  CONNECTOR__HISTORY_LIMIT: z.coerce.number().int().min(20).max(50_000).default(100),
  CONNECTOR__ROUTE_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  CONNECTOR__ROUTE_LOAD_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  CONNECTOR__TASK_SYNC_WINDOW_MS: z.coerce.number().int().min(0).max(60_000).default(300),
  CONNECTOR__TASK_TTL_SECONDS: z.coerce.number().int().min(1).max(30 * 86_400).default(3_600),
  CONNECTOR__APPROVAL_TOOLS: z.string().optional(),
  CONNECTOR__APPROVAL_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(30 * 86_400).default(3 * 86_400),
  CONNECTOR__TASK_TOOLS: z.string().regex(/^\s*([^=,\s]+=(forbidden|optional|required)\s*(,\s*|$))*$/, 'must look like send_*=required,ping=forbidden').optional(),
  CONNECTOR__BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)$/i, 'must look like 1mb or 512kb').default('1mb'),
  CONNECTOR__ALLOWED_REDIRECT_ORIGINS: z.string().optional(),
  CONNECTOR__STDIO_RUNTIME: z.enum(['auto', 'container', 'local', 'kubernetes']).default('auto'),
  CONNECTOR__CONTAINER_ENGINE: z.enum(['podman', 'docker']).optional(),
  CONNECTOR__CONTAINER_PULL: z.enum(['never', 'missing']).default('never'),
  CONNECTOR__STDIO_READY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  CONNECTOR__STDIO_UID_RANGE: z.string().default(DEFAULT_STDIO_UID_RANGE),
  CONNECTOR__STDIO_SINGLE_TENANT: bool.default(false),
  CONNECTOR__KUBE_NAMESPACE: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a Kubernetes namespace name').default('connector-workloads'),
  CONNECTOR__KUBE_PROXY_SELECTOR: z.string().default(DEFAULT_KUBE_PROXY_SELECTOR),
  CONNECTOR__KUBE_PROXY_NAMESPACE_SELECTOR: z.string().default(DEFAULT_KUBE_PROXY_NAMESPACE_SELECTOR),
  CONNECTOR__KUBE_GATEWAY_IMAGE: z.string().min(1).default(DEFAULT_GATEWAY_IMAGE),
  CONNECTOR__KUBE_CLUSTER_CIDRS: z.string().optional(),
  CONNECTOR__KUBE_WORKLOAD_ALLOWED_NETWORKS: z.string().optional(),
  CONNECTOR__KUBE_DNS_SELECTOR: z.string().default(DEFAULT_KUBE_DNS_SELECTOR),
  CONNECTOR__KUBE_DNS_NAMESPACE_SELECTOR: z.string().default(DEFAULT_KUBE_DNS_NAMESPACE_SELECTOR),
  CONNECTOR__KUBE_DNS_CIDRS: z.string().default(DEFAULT_KUBE_DNS_CIDRS),
  CONNECTOR__KUBE_API_SERVER_CIDRS: z.string().optional(),
  CONNECTOR__KUBE_API_SERVER_PORTS: z.string().default(DEFAULT_KUBE_API_SERVER_PORTS),
  CONNECTOR__KUBE_RECONCILE_INTERVAL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(60_000),
  CONNECTOR__KUBE_RECONCILE_GRACE_MS: z.coerce.number().int().min(0).max(86_400_000).optional(),
  KUBECONFIG: z.string().optional(),
  CONNECTOR__AUTH_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
  CONNECTOR__AUTH_AUDIENCE: z.string().min(1).optional(),
  CONNECTOR__AUTH_SUBJECT_CLAIM: z.string().min(1).default('sub'),
  CONNECTOR__AUTH_ROLES_CLAIM: z.string().min(1).default('roles'),
  CONNECTOR__AUTH_ADMIN_ROLE: z.string().min(1).default('connector-admin'),
  // RFC 6749 scope tokens, space-separated: what a stock MCP client asks the issuer for when it signs in to the MCP path.
  CONNECTOR__AUTH_SCOPES: z.string().trim().regex(/^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/, 'must be scope tokens separated by single spaces').default('openid'),
  CONNECTOR__CONSOLE_CLIENT_ID: z.string().min(1).max(512).optional(),
  CONNECTOR__CONSOLE_SCOPE: z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/, 'must be space-separated OAuth scopes').default('openid'),
  CONNECTOR__API_KEYS: z.string().optional(),
  CONNECTOR__AUTH_DISABLED: bool.default(false),
  CONNECTOR__ALLOWED_ORIGINS: z.string().optional(),
  CONNECTOR__MAX_CONNECTORS_PER_OWNER: z.coerce.number().int().min(1).max(1_000_000).default(100),
  CONNECTOR__MAX_TOOLSETS_PER_OWNER: z.coerce.number().int().min(1).max(100_000).default(50),
  CONNECTOR__MAX_STREAMS_PER_OWNER: z.coerce.number().int().min(1).max(100_000).default(64),
  CONNECTOR__RATE_LIMIT_PER_OWNER: z.string().optional(),
  CONNECTOR__UPSTREAM_MAX_SOCKETS: z.coerce.number().int().min(4).max(1_000_000).default(512),
  CONNECTOR__PROXY_PROCESSES: z.coerce.number().int().min(1).max(256).default(1),
  CONNECTOR__GATEWAY_MAX_SESSIONS: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_GATEWAY_MAX_SESSIONS),
  CONNECTOR__EVENTS_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(90),
  CONNECTOR__CALL_AUDIT_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
  CONNECTOR__CALL_AUDIT_QUEUE: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  CONNECTOR__MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  CONNECTOR__HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(20_000),
  CONNECTOR__REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  CONNECTOR__KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Read by package.json's start and worker scripts (node's --max-old-space-size); checked here.
  CONNECTOR__HEAP_MB: z.coerce.number().int().min(32).max(1_048_576).optional(),
  // Read by platform/logger.ts before the configuration is (the logger reports its errors); checked here.
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
});

export interface Config {
  /** Variables set under a name from before CONNECTOR__X (read under the new one): start-up warns once. */
  port: number;
  host: string;
  /** A port of its own for /metrics, unauthenticated (0: any free port); unset: /metrics on `port`. */
  metricsPort?: number;
  /** Public base URL; `{baseUrl}/api/v1/connectors/{id}/mcp` is what MCP clients use. */
  baseUrl: string;
  dataDir: string;
  temporal: {
    address?: string; namespace: string; taskQueue: string; access: TemporalAccess;
    /** Task queues the connector workflows spread over, each with a worker of its own (config/workflow-shards.ts). */
    shards: number;
    /** Connector workflows a worker process keeps in memory, all shards together (the rest are replayed from history when they next run). */
    maxCachedWorkflows: number;
    /**
     * The embedded dev server's Web UI (CONNECTOR__TEMPORAL_UI, default off). It has no sign-in and
     * can read, signal and terminate every connector workflow: only on a single-user machine.
     */
    webUi: boolean;
  };
  mongo: { uri?: string; database: string };
  presets: Preset[];
  /** Presets imported from an MCP registry (CONNECTOR__REGISTRY_*); null: none configured. */
  registry: RegistryConfig | null;
  /** Undefined only in the embedded stack, which then keeps a generated key under DATA_DIR. */
  encryptionKey?: Buffer;
  /** Set, or else on whenever callers are authenticated (a real deployment). */
  blockPrivateNetworks: boolean;
  /** CIDRs reached although private networks are blocked; a token may travel to them over plain http. */
  allowedPrivateNetworks: string[];
  connectTimeoutMs: number;
  authTimeoutSeconds: number;
  /** How long before a token's expiry it is refreshed (shortened to a third of a short lifetime). */
  refreshSkewSeconds: number;
  /** The least time between two scheduled renewals of a connector's token, however short-lived the tokens its authorization server issues. */
  minRefreshIntervalSeconds: number;
  /** The service's workload identity token (SEP-1933), read at each token request; null: connects cannot use workload identity. */
  workloadIdentityTokenFile: string | null;
  /** Whether grants are DPoP-bound where the authorization server offers it (CONNECTOR__UPSTREAM_DPOP=auto), or never (off). */
  upstreamDpop: boolean;
  historyLimit: number;
  routeCacheTtlMs: number;
  /** How long the proxy waits for the registry's answer about a connector before it answers 503. */
  routeLoadTimeoutMs: number;
  /** The tasks the service owns for MCP servers without task support (proxy/tasks). */
  tasks: {
    syncWindowMs: number; ttlMs: number; marks: Array<{ tools: string; support: TaskSupport }>;
    /** Tools whose calls wait for a named approver (CONNECTOR__APPROVAL_TOOLS), each with its wait in ms. */
    approvals: Array<ApprovalRule & { timeoutMs: number }>;
    /** How long a call an owner's rule holds waits, when the rule names no timeout (CONNECTOR__APPROVAL_TIMEOUT_SECONDS). */
    approvalTimeoutMs: number;
  };
  /** The proxy's sockets per upstream origin (open streams included); a connector may hold a quarter. */
  upstreamMaxSockets: number;
  /** Processes the proxy role runs as, on one port (`dist/proxy.mjs`). */
  proxyProcesses: number;
  bodyLimit: string;
  logLevel: string;
  /** Origins a connect's redirect_url may point to; null: any http(s) URL. */
  allowedRedirectOrigins: string[] | null;
  callers: CallerConfig;
  /** The web console's sign-in at the identity provider; null: API keys only (docs/console.md). */
  console: ConsoleConfig | null;
  /** Limits of the HTTP server (API and proxy) against slow and too many clients. */
  http: ServerLimits;
  /** How long the audit events of a deleted connector are kept. */
  eventsRetentionDays: number;
  /** OpenTelemetry traces over OTLP/HTTP; null (no SDK at all) unless an OTLP endpoint is set. */
  tracing: TracingConfig | null;
  /** The per-call audit of MCP traffic: how long it is kept, and how many calls wait for the database at most. */
  callAudit: { days: number; queueCapacity: number };
  stdio: {
    /** `auto`: containers when podman or Docker answers on this machine, else local processes. */
    runtime: 'auto' | 'container' | 'local' | 'kubernetes';
    readyTimeoutMs: number;
    container: {
      /** Unset: podman, then Docker, whichever answers first. */
      engine?: 'podman' | 'docker';
      /** `missing`: a stdio image not on this machine is pulled from its registry; `never` (the default): the engine never contacts one. */
      pull: 'never' | 'missing';
      /** Labels this deployment's containers, so that its reconciler never reaps another's on a shared engine. */
      owner: string;
    };
    /** Open MCP sessions one stdio gateway serves at once (503 beyond). */
    gatewayMaxSessions: number;
    local: {
      /** The uids (and as many gids) the local runtime gives its servers, one each, while they run. */
      uidRange: UidRange;
      /** The operator's word that every caller may see every local server's secrets (no uid switching needed). */
      singleTenant: boolean;
    };
    kube: {
      namespace: string;
      gatewayImage: string;
      reconcileIntervalMs: number;
      /** Workloads younger than this are never reconciled away: they may be ones being connected. */
      reconcileGraceMs: number;
      kubeconfig?: string;
      /** matchLabels of the pods (and of their namespaces) allowed to reach a workload's port 8080. */
      proxySelector: Record<string, string>;
      proxyNamespaceSelector: Record<string, string>;
      /** What a workload may reach: the public internet and DNS, no private or cluster network unless allowed (absent: the defaults). */
      egress?: WorkloadEgress;
    };
  };
}

/** Caller authentication and the limits per owner (docs/security.md). */
export interface CallerConfig {
  /** False with CONNECTOR__AUTH_DISABLED, or with neither issuer nor keys on a loopback address. */
  enabled: boolean;
  apiKeys: ApiKeyEntry[];
  jwt: {
    issuer: string; audiences: string[]; subjectClaim: string; rolesClaim: string; adminRole: string;
    /** Listed as `scopes_supported` of the MCP path's protected-resource metadata and named in its 401 challenge. */
    scopes: string[];
  } | null;
  /** Origins besides BASE_URL's from which browsers may call. */
  allowedOrigins: string[];
  maxConnectorsPerOwner: number;
  maxToolsetsPerOwner: number;
  maxStreamsPerOwner: number;
  /** Requests per second and burst per owner, REST and MCP alike; null: no limit (off, or callers not authenticated). */
  rateLimitPerOwner: RateLimitSettings | null;
}

/** What the console's browser code needs for authorization code + PKCE at CONNECTOR__AUTH_ISSUER. */
export interface ConsoleConfig {
  issuer: string;
  clientId: string;
  /** Sent as the RFC 8707 resource, so that the access token's audience is one the API accepts. */
  audience: string;
  scope: string;
}

function consoleConfig(e: Env, callers: CallerConfig): ConsoleConfig | null {
  if (!e.CONNECTOR__CONSOLE_CLIENT_ID) return null;
  if (!callers.jwt) throw new ConfigError('CONNECTOR__CONSOLE_CLIENT_ID: needs CONNECTOR__AUTH_ISSUER (the console signs in there)');
  return { issuer: callers.jwt.issuer, clientId: e.CONNECTOR__CONSOLE_CLIENT_ID, audience: callers.jwt.audiences[0]!, scope: e.CONNECTOR__CONSOLE_SCOPE };
}

/** Inclusive bounds; the same numbers serve as gids. */
export interface UidRange {
  first: number;
  last: number;
}

/** "first-last": never root or a system account (below 1000), never the kernel's "no id" (2^32 - 1). */
export function parseUidRange(text: string): UidRange {
  const match = /^\s*(\d{1,10})\s*-\s*(\d{1,10})\s*$/.exec(text);
  if (!match) throw new Error('must look like 200000-265535 (first-last)');
  const [first, last] = [Number(match[1]), Number(match[2])];
  if (first < 1000) throw new Error('must start at 1000 or above (never root or a system account)');
  if (last > 4_294_967_294) throw new Error('must end at 4294967294 or below');
  if (last < first) throw new Error('the first id must not exceed the last');
  return { first, last };
}

/** A token bucket: refilled at `perSecond`, holding at most `burst`. */
export interface RateLimitSettings {
  perSecond: number;
  burst: number;
}

/** Generous for an agent platform's busy owner, yet a ceiling on any one owner's share. */
export const DEFAULT_RATE_LIMIT_PER_OWNER = '50/s,burst=100';

/** How to reach an external Temporal beyond its address: TLS (with an optional client certificate) and an API key. */
export interface TemporalAccess {
  tls: { clientCert?: Buffer; clientKey?: Buffer; serverCa?: Buffer; serverName?: string } | null;
  apiKey: string | null;
}

export interface TracingConfig {
  /** Where spans are posted: the traces endpoint itself (`…/v1/traces`). */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_SERVICE_NAME; unset: each process names itself (connector-registry, -api, -proxy, -worker). */
  serviceName?: string;
}

export class ConfigError extends Error {}

/** One deployment's name on shared infrastructure: its Temporal (or embedded data folder), namespace and task queue. */
function deploymentTag(e: { TEMPORAL_ADDRESS?: string; DATA_DIR: string; TEMPORAL_NAMESPACE: string; CONNECTOR__TASK_QUEUE: string }): string {
  const temporal = e.TEMPORAL_ADDRESS ?? `embedded:${resolve(e.DATA_DIR)}`;
  return createHash('sha256').update(`${temporal}|${e.TEMPORAL_NAMESPACE}|${e.CONNECTOR__TASK_QUEUE}`).digest('hex').slice(0, 16);
}

export function loadConfig(given: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(stripEmpty(given));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  const callers = callerConfig(e, baseUrlOf(e));
  return {
    port: e.PORT,
    host: e.HOST,
    metricsPort: e.CONNECTOR__METRICS_PORT,
    baseUrl: baseUrlOf(e),
    dataDir: e.DATA_DIR,
    temporal: {
      address: e.TEMPORAL_ADDRESS, namespace: e.TEMPORAL_NAMESPACE, taskQueue: e.CONNECTOR__TASK_QUEUE, access: temporalAccess(e), shards: e.CONNECTOR__WORKFLOW_SHARDS,
      maxCachedWorkflows: e.CONNECTOR__MAX_CACHED_WORKFLOWS ?? cachedWorkflowsFor(e.CONNECTOR__WORKER_MEMORY_BUDGET_MB),
      webUi: e.CONNECTOR__TEMPORAL_UI,
    },
    mongo: { uri: e.MONGODB_URI, database: e.MONGODB_DATABASE },
    presets: wrap('CONNECTOR__PRESETS', () => parsePresets(e.CONNECTOR__PRESETS)),
    registry: wrap('CONNECTOR__REGISTRY_URL', () => parseRegistryConfig(e.CONNECTOR__REGISTRY_URL, e.CONNECTOR__REGISTRY_SERVERS, e.CONNECTOR__REGISTRY_SYNC_MINUTES)),
    encryptionKey: e.CONNECTOR__ENCRYPTION_KEY
      ? wrap('CONNECTOR__ENCRYPTION_KEY', () => parseKey(e.CONNECTOR__ENCRYPTION_KEY!))
      : undefined,
    blockPrivateNetworks: e.CONNECTOR__BLOCK_PRIVATE_NETWORKS ?? callers.enabled,
    allowedPrivateNetworks: e.CONNECTOR__ALLOWED_PRIVATE_NETWORKS
      ? wrap('CONNECTOR__ALLOWED_PRIVATE_NETWORKS', () => parseNetworks(e.CONNECTOR__ALLOWED_PRIVATE_NETWORKS!))
      : [],
    connectTimeoutMs: e.CONNECTOR__CONNECT_TIMEOUT_MS,
    authTimeoutSeconds: e.CONNECTOR__AUTH_TIMEOUT_SECONDS,
    refreshSkewSeconds: e.CONNECTOR__REFRESH_SKEW_SECONDS,
    minRefreshIntervalSeconds: e.CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS,
    workloadIdentityTokenFile: e.CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE ?? null,
    upstreamDpop: e.CONNECTOR__UPSTREAM_DPOP === 'auto',
    historyLimit: e.CONNECTOR__HISTORY_LIMIT,
    routeCacheTtlMs: e.CONNECTOR__ROUTE_CACHE_TTL_MS,
    routeLoadTimeoutMs: e.CONNECTOR__ROUTE_LOAD_TIMEOUT_MS,
    tasks: { syncWindowMs: e.CONNECTOR__TASK_SYNC_WINDOW_MS, ttlMs: e.CONNECTOR__TASK_TTL_SECONDS * 1000, marks: taskMarksOf(e.CONNECTOR__TASK_TOOLS), approvals: approvalRulesOf(e),
      approvalTimeoutMs: e.CONNECTOR__APPROVAL_TIMEOUT_SECONDS * 1000 },
    upstreamMaxSockets: e.CONNECTOR__UPSTREAM_MAX_SOCKETS,
    proxyProcesses: e.CONNECTOR__PROXY_PROCESSES,
    bodyLimit: e.CONNECTOR__BODY_LIMIT,
    logLevel: e.LOG_LEVEL,
    allowedRedirectOrigins: e.CONNECTOR__ALLOWED_REDIRECT_ORIGINS
      ? wrap('CONNECTOR__ALLOWED_REDIRECT_ORIGINS', () => parseOrigins(e.CONNECTOR__ALLOWED_REDIRECT_ORIGINS!))
      : null,
    callers,
    console: consoleConfig(e, callers),
    http: serverLimitsOf(e),
    eventsRetentionDays: e.CONNECTOR__EVENTS_RETENTION_DAYS,
    tracing: tracingConfig(stripEmpty(given)),
    callAudit: { days: e.CONNECTOR__CALL_AUDIT_DAYS, queueCapacity: e.CONNECTOR__CALL_AUDIT_QUEUE },
    stdio: {
      runtime: e.CONNECTOR__STDIO_RUNTIME,
      readyTimeoutMs: e.CONNECTOR__STDIO_READY_TIMEOUT_MS,
      gatewayMaxSessions: e.CONNECTOR__GATEWAY_MAX_SESSIONS,
      local: {
        uidRange: wrap('CONNECTOR__STDIO_UID_RANGE', () => parseUidRange(e.CONNECTOR__STDIO_UID_RANGE)),
        singleTenant: e.CONNECTOR__STDIO_SINGLE_TENANT,
      },
      container: { engine: e.CONNECTOR__CONTAINER_ENGINE, pull: e.CONNECTOR__CONTAINER_PULL, owner: deploymentTag(e) },
      kube: {
        namespace: e.CONNECTOR__KUBE_NAMESPACE,
        gatewayImage: e.CONNECTOR__KUBE_GATEWAY_IMAGE,
        reconcileIntervalMs: e.CONNECTOR__KUBE_RECONCILE_INTERVAL_MS,
        // A whole start (readiness wait included) and a minute more, unless set.
        reconcileGraceMs: e.CONNECTOR__KUBE_RECONCILE_GRACE_MS ?? e.CONNECTOR__STDIO_READY_TIMEOUT_MS + 60_000,
        kubeconfig: e.KUBECONFIG,
        proxySelector: wrap('CONNECTOR__KUBE_PROXY_SELECTOR', () => parseLabelSelector(e.CONNECTOR__KUBE_PROXY_SELECTOR)),
        proxyNamespaceSelector: wrap('CONNECTOR__KUBE_PROXY_NAMESPACE_SELECTOR',
          () => parseLabelSelector(e.CONNECTOR__KUBE_PROXY_NAMESPACE_SELECTOR)),
        egress: workloadEgressOf(e),
      },
    },
  };
}

/** For the production entry points: they need external servers and a key, never defaults. */
export function requireExternal(config: Config, needs = { mongo: true }): asserts config is Config & { encryptionKey: Buffer } {
  if (!config.encryptionKey) throw new ConfigError('CONNECTOR__ENCRYPTION_KEY: required outside the embedded stack');
  if (!config.temporal.address) throw new ConfigError('TEMPORAL_ADDRESS: required outside the embedded stack');
  if (needs.mongo && !config.mongo.uri) throw new ConfigError('MONGODB_URI: required outside the embedded stack');
}

type Env = z.infer<typeof EnvSchema>;

function temporalAccess(e: Env): TemporalAccess {
  const file = (name: 'TEMPORAL_TLS_CLIENT_CERT_PATH' | 'TEMPORAL_TLS_CLIENT_KEY_PATH' | 'TEMPORAL_TLS_SERVER_CA_CERT_PATH') =>
    e[name] === undefined ? undefined : wrap(name, () => readFileSync(e[name]!));
  if (Boolean(e.TEMPORAL_TLS_CLIENT_CERT_PATH) !== Boolean(e.TEMPORAL_TLS_CLIENT_KEY_PATH)) {
    throw new ConfigError('TEMPORAL_TLS_CLIENT_CERT_PATH: a client certificate needs its key (TEMPORAL_TLS_CLIENT_KEY_PATH), and a key its certificate');
  }
  const anyTlsSetting = e.TEMPORAL_TLS_CLIENT_CERT_PATH || e.TEMPORAL_TLS_SERVER_CA_CERT_PATH || e.TEMPORAL_TLS_SERVER_NAME;
  // An API key is a bearer credential: it never travels without TLS (Temporal Cloud requires both).
  const tls = e.TEMPORAL_TLS ?? Boolean(anyTlsSetting || e.TEMPORAL_API_KEY);
  if (!tls && e.TEMPORAL_API_KEY) throw new ConfigError('TEMPORAL_API_KEY: an API key is only sent over TLS; do not set TEMPORAL_TLS=false with it');
  return {
    tls: tls ? {
      clientCert: file('TEMPORAL_TLS_CLIENT_CERT_PATH'), clientKey: file('TEMPORAL_TLS_CLIENT_KEY_PATH'),
      serverCa: file('TEMPORAL_TLS_SERVER_CA_CERT_PATH'), serverName: e.TEMPORAL_TLS_SERVER_NAME,
    } : null,
    apiKey: e.TEMPORAL_API_KEY ?? null,
  };
}

/**
 * Workloads get an allow-list of their own rather than CONNECTOR__ALLOWED_PRIVATE_NETWORKS: that
 * one says which internal servers the service itself trusts, and opening them to every
 * third-party MCP server too would be a second decision taken silently.
 */
function workloadEgressOf(e: Env): WorkloadEgress {
  type Name = 'CONNECTOR__KUBE_CLUSTER_CIDRS' | 'CONNECTOR__KUBE_WORKLOAD_ALLOWED_NETWORKS' | 'CONNECTOR__KUBE_DNS_CIDRS' | 'CONNECTOR__KUBE_API_SERVER_CIDRS';
  const networks = (name: Name, kind?: 'cluster' | 'allowed') => wrap(name, () => {
    const cidrs = parseNetworks(e[name] ?? '');
    if (kind) checkWorkloadNetworks(cidrs, kind);
    return cidrs;
  });
  return {
    clusterCidrs: networks('CONNECTOR__KUBE_CLUSTER_CIDRS', 'cluster'),
    allowedNetworks: networks('CONNECTOR__KUBE_WORKLOAD_ALLOWED_NETWORKS', 'allowed'),
    dns: {
      selector: wrap('CONNECTOR__KUBE_DNS_SELECTOR', () => parseLabelSelector(e.CONNECTOR__KUBE_DNS_SELECTOR)),
      namespaceSelector: wrap('CONNECTOR__KUBE_DNS_NAMESPACE_SELECTOR', () => parseLabelSelector(e.CONNECTOR__KUBE_DNS_NAMESPACE_SELECTOR)),
      cidrs: networks('CONNECTOR__KUBE_DNS_CIDRS'),
    },
    apiServer: {
      cidrs: networks('CONNECTOR__KUBE_API_SERVER_CIDRS', 'cluster'),
      ports: wrap('CONNECTOR__KUBE_API_SERVER_PORTS', () => parsePorts(e.CONNECTOR__KUBE_API_SERVER_PORTS)),
    },
  };
}

function baseUrlOf(e: Env): string {
  return (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
}

function serverLimitsOf(e: Env): ServerLimits {
  // Node refuses a headers timeout longer than the request timeout (which includes the headers).
  if (e.CONNECTOR__HEADERS_TIMEOUT_MS > e.CONNECTOR__REQUEST_TIMEOUT_MS) {
    throw new ConfigError('CONNECTOR__HEADERS_TIMEOUT_MS: must not exceed CONNECTOR__REQUEST_TIMEOUT_MS');
  }
  return {
    headersTimeoutMs: e.CONNECTOR__HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.CONNECTOR__REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: e.CONNECTOR__KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: e.CONNECTOR__MAX_CONNECTIONS,
  };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

function callerConfig(e: Env, baseUrl: string): CallerConfig {
  const apiKeys = e.CONNECTOR__API_KEYS
    ? wrap('CONNECTOR__API_KEYS', () => ApiKeysSchema.parse(JSON.parse(e.CONNECTOR__API_KEYS!)))
    : [];
  const issuer = e.CONNECTOR__AUTH_ISSUER?.replace(/\/+$/, '');
  if (issuer && new URL(issuer).protocol === 'http:' && !LOOPBACK_HOSTS.has(new URL(issuer).hostname)) {
    throw new ConfigError('CONNECTOR__AUTH_ISSUER: must be https (plain http only on a loopback address)');
  }
  const configured = Boolean(issuer) || apiKeys.length > 0;
  if (!configured && !e.CONNECTOR__AUTH_DISABLED && !LOOPBACK_HOSTS.has(e.HOST) && !e.HOST.startsWith('127.')) {
    throw new ConfigError(
      `HOST=${e.HOST} is not a loopback address and callers are not authenticated: set CONNECTOR__AUTH_ISSUER or ` +
      'CONNECTOR__API_KEYS, or CONNECTOR__AUTH_DISABLED=true to run open on purpose',
    );
  }
  const enabled = configured && !e.CONNECTOR__AUTH_DISABLED;
  return {
    enabled,
    apiKeys,
    jwt: issuer ? {
      issuer, audiences: [e.CONNECTOR__AUTH_AUDIENCE ?? baseUrl], subjectClaim: e.CONNECTOR__AUTH_SUBJECT_CLAIM,
      rolesClaim: e.CONNECTOR__AUTH_ROLES_CLAIM, adminRole: e.CONNECTOR__AUTH_ADMIN_ROLE,
      scopes: e.CONNECTOR__AUTH_SCOPES.split(' '),
    } : null,
    allowedOrigins: e.CONNECTOR__ALLOWED_ORIGINS ? wrap('CONNECTOR__ALLOWED_ORIGINS', () => parseOrigins(e.CONNECTOR__ALLOWED_ORIGINS!)) : [],
    maxConnectorsPerOwner: e.CONNECTOR__MAX_CONNECTORS_PER_OWNER,
    maxToolsetsPerOwner: e.CONNECTOR__MAX_TOOLSETS_PER_OWNER,
    maxStreamsPerOwner: e.CONNECTOR__MAX_STREAMS_PER_OWNER,
    // Checked even while callers are off, so that a typo shows before authentication is turned on.
    rateLimitPerOwner: ((limit) => (enabled ? limit : null))(
      wrap('CONNECTOR__RATE_LIMIT_PER_OWNER', () => parseRateLimit(e.CONNECTOR__RATE_LIMIT_PER_OWNER ?? DEFAULT_RATE_LIMIT_PER_OWNER)),
    ),
  };
}

/** `20/s`, `20/s,burst=40` (burst defaults to twice the rate), or `off`. */
export function parseRateLimit(text: string): RateLimitSettings | null {
  const value = text.trim().toLowerCase();
  if (value === 'off') return null;
  const match = /^(\d+(?:\.\d+)?)\s*\/\s*s(?:\s*,\s*burst\s*=\s*(\d+))?$/.exec(value);
  if (!match) throw new Error('must look like 20/s or 20/s,burst=40, or be off');
  const perSecond = Number(match[1]);
  const burst = match[2] === undefined ? Math.max(1, Math.ceil(2 * perSecond)) : Number(match[2]);
  if (perSecond <= 0 || perSecond > 1_000_000) throw new Error('the rate must be above 0 and at most 1000000/s');
  if (burst < 1 || burst > 10_000_000) throw new Error('burst must be between 1 and 10000000');
  return { perSecond, burst };
}

/**
 * OpenTelemetry's own variables (the OTLP exporter specification), so that a platform's usual
 * settings apply: the signal-specific endpoint is used as given, the general one gets
 * `/v1/traces`. Only OTLP over HTTP is built in; grpc is refused rather than silently ignored.
 * The SDK itself reads the rest (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, OTEL_TRACES_SAMPLER,
 * OTEL_BSP_*, OTEL_RESOURCE_ATTRIBUTES).
 */
function tracingConfig(env: Record<string, string>): TracingConfig | null {
  if (['true', '1'].includes(env.OTEL_SDK_DISABLED?.toLowerCase() ?? '')) return null;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return null;
  if (exporter !== undefined && exporter !== 'otlp') throw new ConfigError(`OTEL_TRACES_EXPORTER: only otlp (or none) is supported, not ${exporter}`);
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const general = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!signal && !general) return null;
  const [name, url] = signal
    ? ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', signal]
    : ['OTEL_EXPORTER_OTLP_ENDPOINT', `${general!.replace(/\/+$/, '')}/v1/traces`];
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new ConfigError(`${name}: must be an http(s) URL`);
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL: ${protocol} is not supported; use http/protobuf or http/json`);
  }
  return { url, protocol, ...(env.OTEL_SERVICE_NAME ? { serviceName: env.OTEL_SERVICE_NAME } : {}) };
}

function wrap<T>(name: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof PresetConfigError || err instanceof RegistryConfigError) throw new ConfigError(err.message);
    throw new ConfigError(`${name}: ${(err as Error).message}`);
  }
}

function parseOrigins(text: string): string[] {
  return text.split(',').map((o) => o.trim()).filter(Boolean).map((o) => {
    const url = new URL(o);
    if (!/^https?:$/.test(url.protocol)) throw new Error(`${o} is not an http(s) origin`);
    return url.origin;
  });
}

/** An empty variable means "not set", as in most deployment tools. */
function stripEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((kv): kv is [string, string] => kv[1] !== undefined && kv[1] !== ''));
}

/** CONNECTOR__APPROVAL_TOOLS: JSON rules, first match wins; a rule's own timeout, else the default. */
function approvalRulesOf(e: Env): Array<ApprovalRule & { timeoutMs: number }> {
  if (!e.CONNECTOR__APPROVAL_TOOLS) return [];
  const rules = wrap('CONNECTOR__APPROVAL_TOOLS', () => ApprovalRulesSchema.parse(JSON.parse(e.CONNECTOR__APPROVAL_TOOLS!)));
  return rules.map((rule) => ({ ...rule, timeoutMs: (rule.timeout_seconds ?? e.CONNECTOR__APPROVAL_TIMEOUT_SECONDS) * 1000 }));
}

/** `glob=support` pairs, in order: the first that names a tool decides. */
function taskMarksOf(text: string | undefined): Array<{ tools: string; support: TaskSupport }> {
  return (text ?? '').split(',').map((pair) => pair.trim()).filter(Boolean).map((pair) => {
    const [tools, support] = pair.split('=') as [string, TaskSupport];
    return { tools, support };
  });
}
