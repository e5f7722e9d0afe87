// Every request and record shape of the REST API, once. The API validates with these, the
// OpenAPI document is generated from them, and types are derived from them.
import { z } from 'zod';
import { STATES } from './connector-states';
import { normaliseUrl, InvalidUrlError } from './connector-url';
import { isLoopbackHost } from './loopback-host';
import { CPU_QUANTITY, MEMORY_QUANTITY, quantityValue, type ResourceName } from './kube-quantity';
import { ConnectEnvSchema, ConnectHeadersSchema, ConnectVariablesSchema, EnvInputDeclarationSchema, HeaderDeclarationSchema, MAX_INPUTS, VariablesDeclarationSchema, urlVariables } from './upstream-inputs';
import { OwnerApprovalRulesSchema } from './approvals';

export const METADATA_MAX_KEYS = 16;

// Keys the document store cannot hold ($-prefixed, dotted, NUL) are refused here, not by the database.
const MetadataKeySchema = z.string().min(1).max(64).regex(/^[^$.\u0000][^.\u0000]*$/, 'must not start with $ or contain . or NUL');

export const MetadataSchema = z
  .record(MetadataKeySchema, z.string().max(512))
  .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, { message: `at most ${METADATA_MAX_KEYS} keys` })
  .meta({ description: 'Display information such as name and description; string values only.' });

/** A connector URL, normalised on the way in; unsupported schemes and malformed URLs are refused. */
export const ConnectorUrlSchema = z
  .string()
  .max(2048)
  .transform((value, ctx) => {
    try {
      return normaliseUrl(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: err instanceof InvalidUrlError ? `URL ${err.message}` : 'invalid URL' });
      return z.NEVER;
    }
  })
  .meta({ description: 'MCP server URL: http://, https:// or mcp+stdio://', example: 'https://mcp.example.com/mcp' });

/** How the service speaks to a remote MCP server; `sse` is the HTTP+SSE transport of 2024-11-05. */
export const UPSTREAM_TRANSPORTS = ['streamable-http', 'sse'] as const;
export type UpstreamTransport = (typeof UPSTREAM_TRANSPORTS)[number];
const TransportSchema = z.enum(UPSTREAM_TRANSPORTS);

export const CreateConnectorSchema = z
  .strictObject({
    url: ConnectorUrlSchema,
    client_id: z.string().min(1).max(512).optional(),
    client_secret: z.string().min(1).max(2048).optional(),
    metadata: MetadataSchema.optional(),
    match_preset: z.boolean().default(true),
    approval_rules: OwnerApprovalRulesSchema.optional().meta({
      description: "Tools (globs over the server's tool names) whose calls wait for an approver the rule names; after the operator's rules, first match wins",
    }),
    transport: TransportSchema.optional().meta({
      description: "The MCP server's transport: streamable-http (the default, or the matched preset's), or sse for a server that still speaks "
        + "the HTTP+SSE transport of 2024-11-05 (clients reach it through the proxy as Streamable HTTP)",
    }),
  })
  .refine((b) => !(b.client_secret && !b.client_id), { message: 'client_secret requires client_id', path: ['client_secret'] })
  .refine((b) => !(b.transport && b.url.startsWith('mcp+stdio:')), { message: 'only for an http or https URL', path: ['transport'] })
  .meta({ id: 'CreateConnectorRequest' });
export type CreateConnectorRequest = z.infer<typeof CreateConnectorSchema>;

/** RFC 7396: a field left out stays as it is; approval_rules is replaced whole, null removes them. */
export const PatchConnectorSchema = z
  .strictObject({
    approval_rules: OwnerApprovalRulesSchema.nullable().optional().meta({
      description: "Replaces the connector's approval rules (null or []: none); after the operator's rules, first match wins",
    }),
  })
  .meta({ id: 'PatchConnectorRequest' });

const HttpUrlSchema = z.url({ protocol: /^https?$/ }).max(2048);

/** The JWS algorithms a private_key_jwt client assertion may be signed with. */
export const SIGNING_ALGORITHMS = ['ES256', 'ES384', 'RS256', 'PS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** The grants with which the service obtains its own token, no consent page involved. */
export const CONNECT_GRANTS = ['client_credentials', 'enterprise_managed', 'workload_identity'] as const;
export type ConnectGrant = (typeof CONNECT_GRANTS)[number];

/** An identity provider's token endpoint: a credential travels there, so https, or plain http to this machine only. */
const IdpTokenEndpointSchema = HttpUrlSchema.refine(
  // Runs even where HttpUrlSchema refused the text (zod runs every check): no URL, no second issue.
  (url) => !URL.canParse(url) || url.startsWith('https:') || isLoopbackHost(new URL(url).hostname),
  { message: 'must be an https URL (plain http only to a loopback host)' },
);

export const ConnectRequestSchema = z
  .strictObject({
    access_token: z.string().min(1).max(16384).optional(),
    redirect_url: HttpUrlSchema.optional(),
    grant: z.enum(CONNECT_GRANTS).optional().meta({
      description: 'client_credentials: the service obtains its own token with the client credentials below (SEP-1046), no user involved. '
        + "enterprise_managed: the service exchanges the user's id_token at the enterprise identity provider for an ID-JAG (RFC 8693) "
        + "and presents it to the MCP server's authorization server (RFC 7523 JWT bearer grant; SEP-990), no consent page involved. "
        + "workload_identity: the service presents its own workload identity token (the file CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE names, "
        + 'read anew at every token request) with the JWT bearer grant (SEP-1933); admins only, or a preset that asks for it',
    }),
    client_id: z.string().min(1).max(512).optional().meta({ description: "With a grant: the service's client at the MCP server's authorization server" }),
    client_secret: z.string().min(1).max(2048).optional()
      .meta({ description: 'With a grant: client_secret_basic or _post, as the authorization server offers; never returned' }),
    private_key_pem: z.string().min(1).max(16384).optional()
      .meta({ description: 'With a grant: PKCS #8 PEM key for private_key_jwt (RFC 7523); never returned' }),
    signing_algorithm: z.enum(SIGNING_ALGORITHMS).optional().meta({ description: 'The algorithm private_key_pem signs with (default ES256)' }),
    headers: ConnectHeadersSchema.optional(),
    variables: ConnectVariablesSchema.optional(),
    env: ConnectEnvSchema.optional(),
    id_token: z.string().min(1).max(16384).optional()
      .meta({
        description: "With grant enterprise_managed: the user's OpenID Connect ID token from the enterprise identity provider; never returned. "
          + 'Alone (no grant): for a connector whose preset declares enterprise_managed. One issued by CONNECTOR__AUTH_ISSUER must be the caller\'s own (its sub)',
      }),
    idp_token_endpoint: IdpTokenEndpointSchema.optional()
      .meta({ description: "With grant enterprise_managed: the identity provider's token endpoint (token exchange)" }),
    idp_client_id: z.string().min(1).max(512).optional()
      .meta({ description: "With grant enterprise_managed: the service's client at the identity provider" }),
    idp_client_secret: z.string().min(1).max(2048).optional()
      .meta({ description: "With grant enterprise_managed: that client's secret (sent as client_secret_post), if it has one; never returned" }),
  })
  .superRefine(checkGrant)
  .meta({ id: 'ConnectRequest' });

type ConnectFields = { [K in 'access_token' | 'grant' | 'client_id' | 'client_secret' | 'private_key_pem' | 'signing_algorithm' | EnterpriseField]?: string };
const CLIENT_FIELDS = ['client_id', 'client_secret', 'private_key_pem', 'signing_algorithm'] as const;
const ENTERPRISE_FIELDS = ['id_token', 'idp_token_endpoint', 'idp_client_id', 'idp_client_secret'] as const;
type EnterpriseField = (typeof ENTERPRISE_FIELDS)[number];

/** What a grant needs, and nothing that belongs to another way of connecting. */
function checkGrant(b: ConnectFields, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (!b.grant) {
    for (const field of CLIENT_FIELDS) if (b[field] !== undefined) issue(field, 'only with grant client_credentials or enterprise_managed');
    // id_token alone is a connect of a preset that declares enterprise_managed (its route checks that).
    for (const field of ENTERPRISE_FIELDS) if (b[field] !== undefined && field !== 'id_token') issue(field, 'only with grant enterprise_managed');
    if (b.id_token !== undefined && b.access_token !== undefined) issue('id_token', 'not with access_token');
    return;
  }
  if (b.access_token !== undefined) issue('access_token', 'not with a grant: the service obtains the token');
  if (!b.client_id) issue('client_id', `required with grant ${b.grant}`);
  if (b.grant === 'workload_identity') {
    // The workload's own token is the credential: nothing else travels with it.
    for (const field of [...CLIENT_FIELDS, ...ENTERPRISE_FIELDS]) if (field !== 'client_id' && b[field] !== undefined) issue(field, 'not with grant workload_identity');
    return;
  }
  if (b.client_secret && b.private_key_pem) issue('private_key_pem', 'give either client_secret or private_key_pem, not both');
  if (!b.client_secret && !b.private_key_pem) issue('client_secret', `client_secret or private_key_pem is required with grant ${b.grant}`);
  if (b.signing_algorithm && !b.private_key_pem) issue('signing_algorithm', 'only with private_key_pem');
  if (b.grant === 'enterprise_managed') {
    for (const field of ['id_token', 'idp_token_endpoint', 'idp_client_id'] as const) if (!b[field]) issue(field, 'required with grant enterprise_managed');
  } else {
    for (const field of ENTERPRISE_FIELDS) if (b[field] !== undefined) issue(field, 'only with grant enterprise_managed');
  }
}
export type ConnectRequest = z.infer<typeof ConnectRequestSchema>;

export const ListConnectorsQuerySchema = z
  .strictObject({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    page_token: z.string().max(512).optional(),
    state: z.enum(STATES).optional(),
    created_by: z.string().min(1).max(256).optional().meta({ description: "Admins only: one owner's connectors, by its qualified name as created_by shows it (key:<subject> or oidc:<subject>)." }),
  })
  .meta({ id: 'ListConnectorsQuery' });
export type ListConnectorsQuery = z.infer<typeof ListConnectorsQuerySchema>;

export const ListEventsQuerySchema = z
  .strictObject({
    limit: z.coerce.number().int().min(1).max(100).default(50),
    page_token: z.string().max(512).optional(),
  })
  .meta({ id: 'ListEventsQuery' });

const InstantSchema = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

export const ListCallsQuerySchema = z
  .strictObject({
    limit: z.coerce.number().int().min(1).max(100).default(50),
    page_token: z.string().max(512).optional(),
    since: InstantSchema.optional().meta({ description: 'Calls at or after this time (RFC 3339)' }),
    until: InstantSchema.optional().meta({ description: 'Calls at or before this time (RFC 3339)' }),
    method: z.string().min(1).max(128).optional().meta({ description: 'JSON-RPC method, e.g. tools/call' }),
    status: z.string().regex(/^[1-5](\d\d|xx)$/, 'must be an HTTP status such as 404, or a class such as 5xx').optional()
      .meta({ description: 'HTTP status (404) or class (5xx)' }),
    error: z.enum(['true', 'false']).transform((v) => v === 'true').optional()
      .meta({ description: 'true: HTTP status 400 or above, or a JSON-RPC error; false: neither' }),
  })
  .meta({ id: 'ListCallsQuery' });

const positive = (resource: ResourceName) => (q: string) => quantityValue(resource, q) > 0;

const ResourceListSchema = z.strictObject({
  cpu: z.string().regex(CPU_QUANTITY, 'must be a Kubernetes CPU quantity such as 250m or 1.5')
    .refine(positive('cpu'), 'must be more than zero').optional(),
  memory: z.string().regex(MEMORY_QUANTITY, 'must be a Kubernetes memory quantity such as 256Mi or 1Gi')
    .refine(positive('memory'), 'must be more than zero').optional(),
});

/** The MCP server container's requests and limits on Kubernetes; what is left out keeps its default. */
export const StdioResourcesSchema = z
  .strictObject({ requests: ResourceListSchema.optional(), limits: ResourceListSchema.optional() })
  .superRefine((r, ctx) => {
    for (const name of ['cpu', 'memory'] as const) {
      const request = r.requests?.[name];
      const limit = r.limits?.[name];
      if (request && limit && quantityValue(name, request) > quantityValue(name, limit)) {
        ctx.addIssue({ code: 'custom', path: ['requests', name], message: `must not exceed limits.${name}` });
      }
    }
  });
export type StdioResources = z.infer<typeof StdioResourcesSchema>;

/**
 * CIDRs a stdio server may reach although private (docs/stdio-runtimes.md, "Network"). Their
 * meaning (never loopback, link-local, metadata or reserved) is checked where presets are parsed
 * (catalog/presets.ts), with the address library the sandbox-safe contract does without.
 */
const WorkloadNetworksSchema = z.array(z.string().min(1).max(64)).max(64);

export const StdioConfigSchema = z.strictObject({
  image: z.string().min(1),
  command: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  access_token_env_name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
  /** Variables a connect supplies (its `env`), injected into the server's environment (docs/presets.md). */
  env_inputs: z.array(EnvInputDeclarationSchema).max(MAX_INPUTS).optional(),
  resources: StdioResourcesSchema.optional(),
  /** The server may reach public addresses (default false: no egress at all). */
  internet: z.boolean().optional(),
  allowed_networks: WorkloadNetworksSchema.optional(),
}).superRefine((s, ctx) => {
  // One source per variable: a connect's value never quietly loses to (or overrides) the preset's own.
  const taken = new Set([...Object.keys(s.env ?? {}), ...(s.access_token_env_name ? [s.access_token_env_name] : [])]);
  for (const [i, input] of (s.env_inputs ?? []).entries()) {
    if (taken.has(input.name)) ctx.addIssue({ code: 'custom', path: ['env_inputs', i, 'name'], message: 'set by the preset already, or declared twice' });
    taken.add(input.name);
  }
});
export type StdioConfig = z.infer<typeof StdioConfigSchema>;

/**
 * A preset's own client credentials grant: the client is the preset's (`client_id`, and
 * `client_secret` or this `private_key_pem`), so an empty connect needs no credential of the caller's.
 */
export const PresetClientCredentialsSchema = z.strictObject({
  private_key_pem: z.string().min(1).max(16384).optional(),
  signing_algorithm: z.enum(SIGNING_ALGORITHMS).optional(),
});

/** Why a preset's (or an overlay's) client_credentials cannot stand: the grant sends its secret where the URL points. */
export function presetClientCredentialsIssues(p: {
  url: string; client_id?: string; client_secret?: string; workload_identity?: unknown; variables?: Record<string, { value?: string; choices?: string[] }>;
  client_credentials?: { private_key_pem?: string; signing_algorithm?: string };
}): string[] {
  const grant = p.client_credentials;
  if (!grant) return [];
  const issues: string[] = [];
  if (p.url.startsWith('mcp+stdio:')) issues.push('only for a remote preset');
  if (!p.client_id) issues.push('requires client_id');
  if (Boolean(p.client_secret) === Boolean(grant.private_key_pem)) issues.push('give the client either client_secret or client_credentials.private_key_pem');
  if (grant.signing_algorithm && !grant.private_key_pem) issues.push('signing_algorithm is for private_key_pem');
  if (p.workload_identity) issues.push('not with workload_identity');
  const open = callerChosenVariables(p.url, p.variables);
  // A caller choosing the host would choose where the preset's client secret is presented.
  if (open.length) issues.push(`needs the URL's variables fixed or chosen from a list (${open.join(', ')} may be set to anything)`);
  return issues;
}

/**
 * A preset's enterprise-managed grant (SEP-990): the identity provider's part; the authorization
 * server's client is the preset's (`client_id`, `client_secret`). A connect then gives only the
 * user's `id_token` (the console: its own sign-in's).
 */
export const PresetEnterpriseManagedSchema = z.strictObject({
  idp_token_endpoint: IdpTokenEndpointSchema,
  idp_client_id: z.string().min(1).max(512),
  idp_client_secret: z.string().min(1).max(2048).optional(),
});

/** Why a preset's enterprise_managed cannot stand: its secrets go where the URL and the preset point. */
export function presetEnterpriseManagedIssues(p: Pick<Preset, 'url' | 'client_id' | 'client_secret' | 'client_credentials' | 'workload_identity' | 'variables' | 'enterprise_managed'>): string[] {
  if (!p.enterprise_managed) return [];
  const issues: string[] = [];
  if (p.url.startsWith('mcp+stdio:')) issues.push('only for a remote preset');
  if (!p.client_id || !p.client_secret) issues.push('requires client_id and client_secret (the client at the MCP server\'s authorization server)');
  if (p.client_credentials || p.workload_identity) issues.push('not with client_credentials or workload_identity');
  const open = callerChosenVariables(p.url, p.variables);
  if (open.length) issues.push(`needs the URL's variables fixed or chosen from a list (${open.join(', ')} may be set to anything)`);
  return issues;
}

export const PresetSchema = z
  .strictObject({
    url: ConnectorUrlSchema,
    client_id: z.string().min(1).optional(),
    client_secret: z.string().min(1).optional(),
    metadata: z.strictObject({ name: z.string(), description: z.string() }).partial().optional(),
    stdio: StdioConfigSchema.optional(),
    /** Headers a connect supplies, or the preset fixes, for the upstream (docs/presets.md). */
    headers: z.array(HeaderDeclarationSchema).max(MAX_INPUTS).optional(),
    /** The URL's `{variables}`, bound at connect. */
    variables: VariablesDeclarationSchema.optional(),
    /** Connects present the service's workload identity token (SEP-1933) as this client (docs/presets.md). */
    workload_identity: z.strictObject({ client_id: z.string().min(1).max(512) }).optional(),
    /** Connects obtain the token with the client credentials grant (SEP-1046) as this preset's client: its secret, or this key (docs/presets.md). */
    client_credentials: PresetClientCredentialsSchema.optional(),
    /** Connects give the user's id_token; the preset's client obtains the token from it with enterprise-managed authorization (SEP-990; docs/presets.md). */
    enterprise_managed: PresetEnterpriseManagedSchema.optional(),
    /** The server's transport (absent: streamable-http). */
    transport: TransportSchema.optional(),
  })
  .superRefine((p, ctx) => {
    const stdioUrl = p.url.startsWith('mcp+stdio:');
    if (stdioUrl && (p.headers || p.variables)) ctx.addIssue({ code: 'custom', path: ['headers'], message: 'headers and variables are for remote presets' });
    if (stdioUrl && p.transport) ctx.addIssue({ code: 'custom', path: ['transport'], message: 'only for a remote preset' });
    checkInputDeclarations(p, ctx);
    if (stdioUrl && !p.stdio) ctx.addIssue({ code: 'custom', path: ['stdio'], message: 'required for an mcp+stdio:// preset' });
    if (!stdioUrl && p.stdio) ctx.addIssue({ code: 'custom', path: ['stdio'], message: 'only allowed for an mcp+stdio:// preset' });
    if (p.client_secret && !p.client_id) ctx.addIssue({ code: 'custom', path: ['client_secret'], message: 'requires client_id' });
    if (p.workload_identity && (stdioUrl || p.client_id)) {
      ctx.addIssue({ code: 'custom', path: ['workload_identity'], message: 'for a remote preset without a client of its own' });
    }
    const open = p.workload_identity ? callerChosenVariables(p.url, p.variables) : [];
    if (open.length) ctx.addIssue({ code: 'custom', path: ['workload_identity'], message: workloadIdentityRefusal(open) });
    for (const issue of presetClientCredentialsIssues(p)) ctx.addIssue({ code: 'custom', path: ['client_credentials'], message: issue });
    for (const issue of presetEnterpriseManagedIssues(p)) ctx.addIssue({ code: 'custom', path: ['enterprise_managed'], message: issue });
  });
export type Preset = z.infer<typeof PresetSchema>;

/**
 * The URL's variables a connect could set to anything: with workload identity they would let a
 * caller choose the server, and so the authorization server the service's own token goes to.
 * A fixed value or a list of choices keeps that the operator's.
 */
export function callerChosenVariables(url: string, variables: Record<string, { value?: string; choices?: string[] }> | undefined): string[] {
  return urlVariables(url).filter((name) => variables?.[name]?.value === undefined && !variables?.[name]?.choices?.length);
}

export const workloadIdentityRefusal = (open: string[]) =>
  `not with URL variables a connect may set freely (${open.map((n) => `{${n}}`).join(', ')}): give them a value or choices`;

/** Each header declared once (names compare without case), each variable one the URL names. */
function checkInputDeclarations(p: { url: string; headers?: { name: string }[]; variables?: Record<string, unknown> }, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  for (const [i, h] of (p.headers ?? []).entries()) {
    if (seen.has(h.name.toLowerCase())) ctx.addIssue({ code: 'custom', path: ['headers', i, 'name'], message: 'declared twice' });
    seen.add(h.name.toLowerCase());
  }
  const named = new Set(urlVariables(p.url));
  for (const name of Object.keys(p.variables ?? {})) {
    if (!named.has(name)) ctx.addIssue({ code: 'custom', path: ['variables', name], message: `the URL names no {${name}}` });
  }
}

/** What a registry stdio preset will run, as its approval pins it (catalog/registry-approval.ts). */
const PresetRunSchema = z.object({
  registry_type: z.string(), identifier: z.string(), version: z.string().nullable(), registry_base_url: z.string().nullable(),
  command: z.array(z.string()).nullable(), args: z.array(z.string()),
  env: z.record(z.string(), z.string()).meta({ description: "The registry's values; a secret reads (secret), the connect's token (the connect's access_token)" }),
});

/** What GET /presets shows: never credentials, nor an env preset's env values. */
export const PublicPresetSchema = z
  .object({
    url: z.string(),
    metadata: z.record(z.string(), z.string()),
    stdio: z.object({ image: z.string() }).optional(),
    /** False when no stdio runtime of this deployment can run it; `reason` says why. */
    runnable: z.boolean(),
    reason: z.string().optional(),
    source: z.enum(['env', 'registry']).meta({ description: 'env: CONNECTOR__PRESETS; registry: synced from CONNECTOR__REGISTRY_URL' }),
    version: z.string().nullable().meta({ description: "The registry server's version; null for env presets" }),
    name: z.string().optional().meta({ description: 'Registry presets: the server name (the path parameter of approve)' }),
    deprecated: z.boolean().optional().meta({ description: 'The registry marks the server deprecated' }),
    approved: z.boolean().optional().meta({ description: 'Registry stdio presets: whether an admin approved this version (it runs only then)' }),
    fields: z.array(z.object({
      name: z.string(), in: z.enum(['connect', 'url', 'header', 'env']), secret: z.boolean(), description: z.string().optional(),
      required: z.boolean().optional(), default: z.string().optional().meta({ description: 'Never for a secret' }),
    })).optional().meta({ description: 'What a connect supplies: access_token (in connect), headers (in header: the connect body\'s headers), URL variables (in url: its variables); for a preset that cannot run, what keeps it from running' }),
    run: PresetRunSchema.optional().meta({ description: 'Registry stdio presets: what will run (what an approval pins)' }),
    digest: z.string().optional().meta({ description: 'Registry stdio presets: the SHA-256 of `run` (and of secret values) an approval pins' }),
    changes: z.array(z.string()).optional().meta({ description: 'Registry stdio presets whose approval no longer counts: what changed since, in words' }),
    approved_by: z.string().optional(),
    approved_at: z.string().optional(),
  })
  .meta({ id: 'Preset' });

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem' });

export const PresetListSchema = z.object({ items: z.array(PublicPresetSchema) }).meta({ id: 'PresetList' });

/** Turns zod issues into the `errors` member of a problem body. */
export function fieldErrors(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: issue.path.length ? issue.path.map(String).join('.') : '(body)',
    message: issue.message,
  }));
}

/** POST /api/v1/connectors/presets/{name}/approve. */
export const ApprovePresetSchema = z.strictObject({
  /** The version the admin looked at; refused when the synced version is another by now. */
  version: z.string().min(1).max(255).optional(),
  /** The run digest the admin looked at (the list's `digest`); refused when the synced run is another by now. */
  digest: z.string().regex(/^sha256:[a-f0-9]{64}$/).optional(),
});
