// Every request and record shape of the REST API, once. The API validates with these, the
// OpenAPI document is generated from them, and types are derived from them.
import { z } from 'zod';
import { STATES } from './connector-states';
import { normaliseUrl, InvalidUrlError } from './connector-url';
import { CPU_QUANTITY, MEMORY_QUANTITY, quantityValue, type ResourceName } from './kube-quantity';

const METADATA_MAX_KEYS = 16;

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

export const CreateConnectorSchema = z
  .strictObject({
    url: ConnectorUrlSchema,
    client_id: z.string().min(1).max(512).optional(),
    client_secret: z.string().min(1).max(2048).optional(),
    metadata: MetadataSchema.optional(),
    match_preset: z.boolean().default(true),
  })
  .refine((b) => !(b.client_secret && !b.client_id), { message: 'client_secret requires client_id', path: ['client_secret'] })
  .meta({ id: 'CreateConnectorRequest' });
export type CreateConnectorRequest = z.infer<typeof CreateConnectorSchema>;

const HttpUrlSchema = z.url({ protocol: /^https?$/ }).max(2048);

export const ConnectRequestSchema = z
  .strictObject({
    access_token: z.string().min(1).max(16384).optional(),
    redirect_url: HttpUrlSchema.optional(),
  })
  .meta({ id: 'ConnectRequest' });
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

export const StdioConfigSchema = z.strictObject({
  image: z.string().min(1),
  command: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  access_token_env_name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
  resources: StdioResourcesSchema.optional(),
});
export type StdioConfig = z.infer<typeof StdioConfigSchema>;

export const PresetSchema = z
  .strictObject({
    url: ConnectorUrlSchema,
    client_id: z.string().min(1).optional(),
    client_secret: z.string().min(1).optional(),
    metadata: z.strictObject({ name: z.string(), description: z.string() }).partial().optional(),
    stdio: StdioConfigSchema.optional(),
  })
  .superRefine((p, ctx) => {
    const stdioUrl = p.url.startsWith('mcp+stdio:');
    if (stdioUrl && !p.stdio) ctx.addIssue({ code: 'custom', path: ['stdio'], message: 'required for an mcp+stdio:// preset' });
    if (!stdioUrl && p.stdio) ctx.addIssue({ code: 'custom', path: ['stdio'], message: 'only allowed for an mcp+stdio:// preset' });
    if (p.client_secret && !p.client_id) ctx.addIssue({ code: 'custom', path: ['client_secret'], message: 'requires client_id' });
  });
export type Preset = z.infer<typeof PresetSchema>;

/** What GET /presets shows: never credentials or env values. */
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
    })).optional().meta({ description: 'Registry presets: what a connect supplies (access_token), or what keeps the preset from running' }),
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
});
