// One line of meaning per configuration variable, keyed by the schema's own names so that the
// compiler refuses a variable without one (and a line for a variable that no longer exists).
// docs/configuration.md is generated from the schema and these lines (npm run docs:config), and
// test/config/config-reference.test.ts fails when the two drift apart.
import type { EnvSchema } from './config';

export type Section =
  | 'deployment' | 'server' | 'temporal' | 'memory' | 'database' | 'callers' | 'limits' | 'network'
  | 'connectors' | 'proxy' | 'stdio' | 'kubernetes' | 'audit' | 'observability';

export interface VariableDoc {
  section: Section;
  meaning: string;
  /** What the default is when the schema cannot say (it is derived, or set outside the schema). */
  default?: string;
  /** What a value looks like, when the schema's type says too little. */
  format?: string;
}

export const SECTION_TITLES: Record<Section, string> = {
  deployment: 'A deployment sets',
  server: 'HTTP server',
  temporal: 'Temporal',
  memory: 'Worker memory',
  database: 'Database',
  callers: 'Callers',
  limits: 'Limits per owner and connector',
  network: 'Network reach',
  connectors: 'Connectors',
  proxy: 'MCP proxy',
  stdio: 'Managed stdio servers',
  kubernetes: 'Kubernetes runtime',
  audit: 'Audit and retention',
  observability: 'Logs, metrics and traces',
};

type Name = keyof typeof EnvSchema.shape;

export const VARIABLE_DOCS: Record<Name, VariableDoc> = {
  BASE_URL: { section: 'deployment', default: '`http://localhost:$PORT`', meaning: 'public base URL: `mcp_url`, the OAuth callback and the client metadata document derive from it' },
  HOST: { section: 'deployment', meaning: 'address to listen on; a non-loopback one needs callers authenticated (or `CONNECTOR__AUTH_DISABLED=true`)' },
  TEMPORAL_ADDRESS: { section: 'deployment', format: '`host:port`', meaning: 'an external Temporal; no dev server is started then (required by the production entry points)' },
  MONGODB_URI: { section: 'deployment', format: '`mongodb://` or `mongodb+srv://`', meaning: 'an external MongoDB; no FerretDB is started then (required by the production entry points)' },
  CONNECTOR__ENCRYPTION_KEY: { section: 'deployment', default: 'generated under `DATA_DIR` (embedded only)', format: '32 bytes, hex or base64', meaning: 'AES-256-GCM key for every secret at rest; required by the production entry points' },
  CONNECTOR__AUTH_ISSUER: { section: 'deployment', format: 'https URL (http only on loopback)', meaning: "OpenID issuer of the platform's identity provider: callers' access tokens are checked against its JWKS" },
  CONNECTOR__API_KEYS: { section: 'deployment', format: 'JSON array', meaning: 'static keys, `[{"subject":"team-a","sha256":"<hex of the key>","admin":false}]`' },
  CONNECTOR__PRESETS: { section: 'deployment', default: 'the three built-ins', format: 'JSON array', meaning: 'presets; replaces the built-ins; a bad entry stops start-up naming entry and field' },
  CONNECTOR__REGISTRY_URL: { section: 'connectors', format: 'http(s) URL', meaning: 'API base of an MCP registry (`/v0.1/servers`): the official one or a sub-registry; presets synced from it (docs/presets.md)' },
  CONNECTOR__REGISTRY_SERVERS: { section: 'connectors', format: 'JSON array', meaning: 'the allow-list `[{ "name", "version"?, "overlay"? }]`; required with the URL' },
  CONNECTOR__REGISTRY_SYNC_MINUTES: { section: 'connectors', default: '60', meaning: 'the registry sync schedule\'s period (1 to 10080)' },

  PORT: { section: 'server', meaning: 'HTTP port (API and proxy share it in the embedded stack)' },
  DATA_DIR: { section: 'server', meaning: "Temporal's SQLite file, FerretDB's files and the generated key (embedded stack)" },
  CONNECTOR__BODY_LIMIT: { section: 'server', format: '`1mb`, `512kb`', meaning: 'largest REST request body' },
  CONNECTOR__HEADERS_TIMEOUT_MS: { section: 'server', meaning: 'how long a client may take to send its headers (408 beyond; never more than the request timeout)' },
  CONNECTOR__REQUEST_TIMEOUT_MS: { section: 'server', meaning: 'how long a client may take to send its whole request (408 beyond; responses and SSE streams are never cut)' },
  CONNECTOR__KEEP_ALIVE_TIMEOUT_MS: { section: 'server', meaning: "an idle keep-alive connection's life" },
  CONNECTOR__MAX_CONNECTIONS: { section: 'server', meaning: 'open connections the HTTP server accepts; more are closed at once' },

  TEMPORAL_NAMESPACE: { section: 'temporal', meaning: 'the Temporal namespace of the connector workflows' },
  CONNECTOR__TASK_QUEUE: { section: 'temporal', meaning: 'task queue of the connector workflows (was `TEMPORAL_TASK_QUEUE`)' },
  TEMPORAL_TLS: { section: 'temporal', default: 'on when any TLS setting or an API key is set', meaning: "TLS to an external Temporal (Temporal's own variable names)" },
  TEMPORAL_TLS_CLIENT_CERT_PATH: { section: 'temporal', meaning: 'client certificate file; needs its key' },
  TEMPORAL_TLS_CLIENT_KEY_PATH: { section: 'temporal', meaning: "the client certificate's key file" },
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: { section: 'temporal', meaning: "CA file that signed Temporal's server certificate" },
  TEMPORAL_TLS_SERVER_NAME: { section: 'temporal', meaning: "name expected in Temporal's server certificate" },
  TEMPORAL_API_KEY: { section: 'temporal', meaning: 'a Temporal Cloud API key; only ever sent over TLS' },
  CONNECTOR__TEMPORAL_UI: { section: 'temporal', meaning: "start the embedded dev server's Web UI (unauthenticated: single-user machines only); the banner names it" },
  CONNECTOR__WORKFLOW_SHARDS: { section: 'temporal', meaning: 'task queues the connector workflows spread over by id, each served by a worker of its own in every worker process, sharing its cache and slots: each walks only its share of the cache (docs/scale.md); may be raised at any time, not lowered while workflows run on a queue it would drop (the worker refuses to start)' },
  CONNECTOR__HISTORY_LIMIT: { section: 'temporal', meaning: 'history events after which a connector workflow continues as new (one created since the rule also does once a connect has settled into its refresh wait); a connector keeps the limit it was created with' },

  CONNECTOR__WORKER_MEMORY_BUDGET_MB: { section: 'memory', meaning: 'memory a worker spends on cached workflows: the cache holds budget ÷ 400 KB of them (163 by default), the rest replay when they wake (docs/scale.md)' },
  CONNECTOR__MAX_CACHED_WORKFLOWS: { section: 'memory', default: 'from the budget', meaning: "the workflow cache's size, given outright (was `TEMPORAL_MAX_CACHED_WORKFLOWS`)" },
  CONNECTOR__HEAP_MB: { section: 'memory', default: '160 (`npm start`, `npm run worker`)', meaning: "V8's heap limit per isolate (`--max-old-space-size`); a worker whose cache would not fit refuses to start (docs/scale.md)" },

  MONGODB_DATABASE: { section: 'database', meaning: 'the database holding records, audit events, calls and list keys' },

  CONNECTOR__AUTH_AUDIENCE: { section: 'callers', default: '`BASE_URL`', meaning: "accepted `aud`; on a connector's MCP path its `mcp_url` is accepted too" },
  CONNECTOR__CONSOLE_CLIENT_ID: { section: 'callers', meaning: "the web console's client id at `CONNECTOR__AUTH_ISSUER` (a public client, PKCE, redirect URI `{BASE_URL}/`); unset: the console signs in with API keys only (docs/console.md)" },
  CONNECTOR__CONSOLE_SCOPE: { section: 'callers', meaning: 'the scope the console asks the identity provider for (with `resource` = the API\'s audience)' },
  CONNECTOR__AUTH_SCOPES: { section: 'callers', meaning: "space-separated scopes listed as `scopes_supported` in the MCP path's protected-resource metadata and named in its 401 challenge: what a stock MCP client asks the issuer for" },
  CONNECTOR__AUTH_SUBJECT_CLAIM: { section: 'callers', meaning: 'the claim naming the owner' },
  CONNECTOR__AUTH_ROLES_CLAIM: { section: 'callers', meaning: 'the claim holding roles' },
  CONNECTOR__AUTH_ADMIN_ROLE: { section: 'callers', meaning: 'the role that makes a caller an admin' },
  CONNECTOR__AUTH_DISABLED: { section: 'callers', meaning: '`true` runs without caller authentication on purpose' },
  CONNECTOR__ALLOWED_ORIGINS: { section: 'callers', format: 'comma-separated origins', meaning: "origins besides `BASE_URL`'s whose browsers may call (others: 403)" },
  CONNECTOR__ALLOWED_REDIRECT_ORIGINS: { section: 'callers', default: 'any (none with callers authenticated)', format: 'comma-separated origins', meaning: "origins a connect's `redirect_url` may point to" },

  CONNECTOR__MAX_CONNECTORS_PER_OWNER: { section: 'limits', meaning: 'connectors one owner may have (429 beyond)' },
  CONNECTOR__MAX_TOOLSETS_PER_OWNER: { section: 'limits', meaning: 'toolsets one owner may have (429 beyond); each toolset at most 64 KiB' },
  CONNECTOR__MAX_STREAMS_PER_OWNER: { section: 'limits', meaning: 'concurrent MCP requests and streams per owner (429 beyond)' },
  CONNECTOR__RATE_LIMIT_PER_OWNER: { section: 'limits', default: '`50/s,burst=100` with callers authenticated', format: '`20/s`, `20/s,burst=40`, `off`', meaning: 'requests per second per owner and the burst above it; 429 with `Retry-After`, `RateLimit-Policy`, `RateLimit` beyond' },
  CONNECTOR__UPSTREAM_MAX_SOCKETS: { section: 'limits', meaning: "the proxy's connections per owner and upstream origin (an open stream holds one); one connector may hold a quarter" },

  CONNECTOR__BLOCK_PRIVATE_NETWORKS: { section: 'network', default: 'true with callers authenticated, else false', meaning: 'also refuse loopback, private, unique-local and CGNAT addresses for every URL fetched on someone\'s word (link-local and metadata always are)' },
  CONNECTOR__ALLOWED_PRIVATE_NETWORKS: { section: 'network', format: 'comma-separated CIDRs', meaning: 'let through while private networks are blocked (internal MCP servers, authorization servers, the issuer); never opens link-local, metadata or reserved ranges; a bad entry stops start-up' },

  CONNECTOR__CONNECT_TIMEOUT_MS: { section: 'connectors', meaning: 'how long a probe of an MCP server may take before connect answers 504' },
  CONNECTOR__AUTH_TIMEOUT_SECONDS: { section: 'connectors', meaning: 'how long an authorization URL stays valid (`auth_required` → `disconnected`, "authorization timed out")' },
  CONNECTOR__REFRESH_SKEW_SECONDS: { section: 'connectors', meaning: "how long before a token's `expires_at` it is refreshed (a third of the lifetime for shorter-lived tokens)" },
  CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS: {
    section: 'connectors',
    meaning: "the least time between two scheduled renewals of a connector's token, so that an authorization server issuing tokens of seconds cannot make the worker renew them that often; a token that expires sooner is renewed when the MCP server refuses it. `0`: no floor (tests with tokens of seconds)",
  },
  CONNECTOR__UPSTREAM_DPOP: {
    section: 'connectors', default: 'auto', format: '`auto` or `off`',
    meaning: "`auto`: a grant is DPoP-bound (SEP-1932) where the authorization server lists ES256 in `dpop_signing_alg_values_supported`; "
      + '`off`: never, for MCP servers that take only Bearer tokens behind an authorization server that offers DPoP. Applies to grants started after the change',
  },
  CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE: {
    section: 'connectors', default: 'unset: no connect uses workload identity', format: 'absolute path',
    meaning: "the service's workload identity JWT (SEP-1933), e.g. a Kubernetes projected service-account token "
      + '(`/var/run/secrets/tokens/<name>`, with the authorization server as its audience; not assumed when unset). Read anew at every token '
      + 'request of a `workload_identity` connect (it rotates), never stored or logged; docs/presets.md',
  },

  CONNECTOR__ROUTE_CACHE_TTL_MS: { section: 'proxy', meaning: 'how long a proxy in another process than the API trusts a cached route (and so an old token after a disconnect)' },
  CONNECTOR__ROUTE_LOAD_TIMEOUT_MS: { section: 'proxy', meaning: "how long the proxy waits for the registry's answer about a connector before it answers 503" },
  CONNECTOR__TASK_SYNC_WINDOW_MS: { section: 'proxy', meaning: "for MCP servers without task support, whose tasks the service runs: a declaring client's tools/call that ends within this is answered as a plain call, a longer one with a task" },
  CONNECTOR__TASK_TTL_SECONDS: { section: 'proxy', meaning: "how long a task the service owns keeps its outcome for its client (its `ttlMs`)" },
  CONNECTOR__APPROVAL_TOOLS: { section: 'proxy', format: 'JSON `[{"tools":"glob","approvers":["key:…","oidc:…","role:…"],"timeout_seconds":n}]`', meaning: 'tools whose calls wait for a named approver on the console (first match wins); a client without the Tasks extension gets -32042 with the approval page' },
  CONNECTOR__APPROVAL_TIMEOUT_SECONDS: { section: 'proxy', meaning: 'how long a call held for approval waits for a decision when its rule gives no `timeout_seconds`; then it fails' },
  CONNECTOR__TASK_TOOLS: { section: 'proxy', format: 'comma-separated `glob=forbidden|optional|required`', meaning: 'task support of tools whose MCP server has none: `required` refuses clients without the Tasks extension (-32021), `forbidden` never makes a task; unnamed tools are `optional`' },
  CONNECTOR__PROXY_PROCESSES: { section: 'proxy', meaning: 'processes `dist/proxy.mjs` runs as, on one port (`node:cluster`; a dead one is replaced); was `PROXY_PROCESSES`' },

  CONNECTOR__STDIO_RUNTIME: { section: 'stdio', meaning: '`auto`: `container` when podman or Docker answers, else `local` (child processes, each its own uid); or `kubernetes`' },
  CONNECTOR__CONTAINER_ENGINE: { section: 'stdio', default: 'the first that answers', meaning: "the container runtime's engine" },
  CONNECTOR__CONTAINER_PULL: { section: 'stdio', meaning: '`missing`: pull a stdio image that is not on this machine from its registry; `never`: the engine never contacts a registry (a missing image disconnects the connector, naming it)' },
  CONNECTOR__STDIO_READY_TIMEOUT_MS: { section: 'stdio', meaning: 'readiness limit of a managed stdio workload (connect answers 504 beyond)' },
  CONNECTOR__STDIO_UID_RANGE: { section: 'stdio', format: '`first-last`', meaning: "the local runtime's uids, one per running server" },
  CONNECTOR__STDIO_SINGLE_TENANT: { section: 'stdio', meaning: 'the opt-in to run local servers unisolated with callers authenticated' },
  CONNECTOR__GATEWAY_MAX_SESSIONS: { section: 'stdio', meaning: 'MCP sessions one stdio gateway serves at once (503 beyond); a session idle 60 s after `initialize` is closed' },

  CONNECTOR__KUBE_NAMESPACE: { section: 'kubernetes', meaning: "the workloads' own namespace" },
  CONNECTOR__KUBE_GATEWAY_IMAGE: { section: 'kubernetes', meaning: 'the gateway sidecar image (pinned, never `:latest`)' },
  KUBECONFIG: { section: 'kubernetes', meaning: "the cluster to run workloads on (unset: the Kubernetes client's own defaults)" },
  CONNECTOR__KUBE_PROXY_SELECTOR: { section: 'kubernetes', format: '`k=v,...`', meaning: "labels of the proxy pods: each workload's NetworkPolicy admits only them, on port 8080" },
  CONNECTOR__KUBE_PROXY_NAMESPACE_SELECTOR: { section: 'kubernetes', format: '`k=v,...`', meaning: "labels of the proxy pods' namespace" },
  CONNECTOR__KUBE_CLUSTER_CIDRS: { section: 'kubernetes', format: 'comma-separated CIDRs', meaning: "the cluster's pod and service ranges: a workload's NetworkPolicy allows egress to the public internet only (never RFC 1918, CGNAT, unique-local, loopback, link-local, metadata or these) except DNS, the API server and the allowed networks" },
  CONNECTOR__KUBE_WORKLOAD_ALLOWED_NETWORKS: { section: 'kubernetes', format: 'comma-separated CIDRs', meaning: 'private networks workloads may reach besides the public internet' },
  CONNECTOR__KUBE_DNS_SELECTOR: { section: 'kubernetes', format: '`k=v,...`', meaning: 'labels of the DNS pods workloads may query' },
  CONNECTOR__KUBE_DNS_NAMESPACE_SELECTOR: { section: 'kubernetes', format: '`k=v,...`', meaning: "labels of the DNS pods' namespace" },
  CONNECTOR__KUBE_DNS_CIDRS: { section: 'kubernetes', format: 'comma-separated CIDRs', meaning: 'node-local DNS addresses workloads may query' },
  CONNECTOR__KUBE_API_SERVER_CIDRS: { section: 'kubernetes', format: 'comma-separated CIDRs', meaning: "the API server's endpoints (the gateway attaches through it)" },
  CONNECTOR__KUBE_API_SERVER_PORTS: { section: 'kubernetes', format: 'comma-separated ports', meaning: "the API server's ports" },
  CONNECTOR__KUBE_RECONCILE_INTERVAL_MS: { section: 'kubernetes', meaning: 'how often orphaned workloads are removed' },
  CONNECTOR__KUBE_RECONCILE_GRACE_MS: { section: 'kubernetes', default: 'readiness limit + 60000', meaning: 'how old an orphan must be to go (a younger one may be being connected)' },

  CONNECTOR__CALL_AUDIT_DAYS: { section: 'audit', meaning: 'how long the per-call audit keeps a call (a TTL index; on FerretDB the worker sweeps)' },
  CONNECTOR__CALL_AUDIT_QUEUE: { section: 'audit', meaning: 'calls a proxy process holds for the database at most; past it calls are left out and counted in `mcp_call_audit_dropped_total`' },
  CONNECTOR__EVENTS_RETENTION_DAYS: { section: 'audit', meaning: "how long a deleted connector's audit events are kept (a TTL index; on FerretDB, which has none, the worker sweeps every 5 minutes, OAuth states too an hour past expiry)" },

  LOG_LEVEL: { section: 'observability', meaning: 'pino level' },
  LOG_FORMAT: { section: 'observability', default: '`pretty` on a terminal, else `json`', meaning: '`npm start` only: `json`, or `pretty` (readable lines, `pino-pretty`), whatever the output is; the production entry points always log JSON' },
  CONNECTOR__METRICS_PORT: { section: 'observability', format: 'port (0: any free port)', meaning: 'serve `GET /metrics` on this port of `HOST`, unauthenticated, instead of on `PORT` (admin only there while callers are authenticated); was `METRICS_PORT`' },
};

/** Read outside the schema (by the SDKs, glibc, or the tracing set-up from the raw environment). */
export const OTHER_VARIABLES: ReadonlyArray<{ name: string; default: string } & Omit<VariableDoc, 'default'>> = [
  { name: 'MALLOC_ARENA_MAX', section: 'memory', default: '2 (`npm start`, `npm run worker`, `npm run proxy`, the image)', meaning: "glibc's malloc arenas: one per thread kept about 200 MB of freed memory at 600 connectors" },
  { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', section: 'observability', default: '— (traces off)', meaning: 'OTLP/HTTP collector for traces (`/v1/traces` is appended); unset: no SDK is loaded at all' },
  { name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', section: 'observability', default: '—', meaning: 'the traces endpoint, used as given' },
  { name: 'OTEL_EXPORTER_OTLP_PROTOCOL', section: 'observability', default: '`http/protobuf`', meaning: '`http/protobuf` or `http/json` (`grpc` is refused at start-up); `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` too' },
  { name: 'OTEL_SERVICE_NAME', section: 'observability', default: '`connector-registry`, `-api`, `-proxy`, `-worker`', meaning: "the processes' `service.name`" },
  { name: 'OTEL_SDK_DISABLED', section: 'observability', default: '—', meaning: '`true` (or `OTEL_TRACES_EXPORTER=none`) turns traces off; the SDK also reads `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT`, `OTEL_TRACES_SAMPLER`, `OTEL_BSP_*`' },
];
