// CONNECTOR__REGISTRY_URL, CONNECTOR__REGISTRY_SERVERS and CONNECTOR__REGISTRY_SYNC_MINUTES: which
// MCP registry the presets are imported from, which of its servers, and what each one's
// server.json cannot carry (the overlay). Validated at start-up like CONNECTOR__PRESETS.
import { z } from 'zod';
import { parseWorkloadNetworks } from '../platform/workload-egress';
import { METADATA_MAX_KEYS, MetadataSchema, StdioResourcesSchema, PresetClientCredentialsSchema, PresetEnterpriseManagedSchema } from '../contract/schemas';
import { MAX_HEADER_VALUE, MAX_INPUTS } from '../contract/upstream-inputs';

/** The registry's own rule for server names (reverse-DNS namespace, one slash). */
export const SERVER_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

export const ServerNameSchema = z.string().min(3).max(200).regex(SERVER_NAME, 'must look like io.github.owner/server');

const CidrListSchema = z.array(z.string().min(1).max(64)).max(64).superRefine((cidrs, ctx) => {
  try {
    parseWorkloadNetworks(cidrs);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
  }
});

/** What server.json cannot carry, added by the operator per server. */
export const RegistryOverlaySchema = z.strictObject({
  client_id: z.string().min(1).max(512).optional(),
  client_secret: z.string().min(1).max(2048).optional(),
  resources: StdioResourcesSchema.optional(),
  /** Private networks the server may reach (its egress, docs/stdio-runtimes.md); never loopback, link-local or metadata. */
  allowed_networks: CidrListSchema.optional(),
  /** The server may reach the public internet (npm and PyPI packages always may: they fetch their code). */
  internet: z.boolean().optional(),
  /**
   * Any string map within a connector record's metadata limits (decisions.md): `name` and
   * `description` replace the registry's title and description, other keys are added; the
   * preset's metadata is then what a connector made from it starts with.
   */
  metadata: MetadataSchema.refine((m) => Object.keys({ name: '', description: '', ...m }).length <= METADATA_MAX_KEYS, {
    message: `with the name and description, at most ${METADATA_MAX_KEYS} keys`,
  }).optional(),
  /**
   * The operator's word that this server's OCI registry never moves a tag to other bytes (tag
   * immutability, as ECR and Harbor can enforce): its image may then be named by tag alone.
   * Without it a registry image must carry a digest, so that an approval pins what runs.
   */
  immutable_image_tags: z.boolean().optional(),
  /**
   * npm and PyPI packages fetch their code when they start: the local runtime runs them only with
   * this operator's word (never by default), after an admin approved the version as for any stdio preset.
   */
  allow_package_fetch: z.boolean().optional(),
  /**
   * Fixed values for the remote's headers and URL variables (by name): a connect may then not set
   * them. A header value is sealed into the connector's workflow at each connect, as a given one is.
   */
  headers: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/, 'must be a header name'), z.string().min(1).max(MAX_HEADER_VALUE))
    .refine((h) => Object.keys(h).length <= MAX_INPUTS, `at most ${MAX_INPUTS} headers`).optional(),
  variables: z.record(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a plain identifier'), z.string().min(1).max(253))
    .refine((v) => Object.keys(v).length <= MAX_INPUTS, `at most ${MAX_INPUTS} variables`).optional(),
  /** A remote's connects present the service's workload identity token as this client (docs/presets.md). */
  workload_identity: z.strictObject({ client_id: z.string().min(1).max(512) }).optional(),
  /** A remote's connects use the client credentials grant as the overlay's client (docs/presets.md). */
  client_credentials: PresetClientCredentialsSchema.optional(),
  /**
   * A remote's connects use enterprise-managed authorization (SEP-990) with the overlay's
   * client_id and client_secret at the server's authorization server; a connect gives the user's id_token.
   */
  enterprise_managed: PresetEnterpriseManagedSchema.optional(),
}).refine((o) => !(o.client_secret && !o.client_id), { message: 'client_secret requires client_id', path: ['client_secret'] })
  .refine((o) => !(o.workload_identity && o.client_id), { message: 'not with a client_id of its own', path: ['workload_identity'] });
export type RegistryOverlay = z.infer<typeof RegistryOverlaySchema>;

export const RegistryServerEntrySchema = z.strictObject({
  name: ServerNameSchema,
  /** Pinned: this exact version; absent: the latest. */
  version: z.string().min(1).max(255).refine((v) => v !== 'latest', 'leave version out for the latest').optional(),
  overlay: RegistryOverlaySchema.optional(),
});
export type RegistryServerEntry = z.infer<typeof RegistryServerEntrySchema>;

export interface RegistryConfig {
  /** The API base, e.g. https://registry.modelcontextprotocol.io (no trailing slash). */
  url: string;
  servers: RegistryServerEntry[];
  syncMinutes: number;
}

export class RegistryConfigError extends Error {}

/** Null when no registry is configured; a bad value throws naming the variable, entry and field. */
export function parseRegistryConfig(url: string | undefined, servers: string | undefined, minutes: string | undefined): RegistryConfig | null {
  if (!url) {
    if (servers) throw new RegistryConfigError('CONNECTOR__REGISTRY_SERVERS: needs CONNECTOR__REGISTRY_URL');
    return null;
  }
  return { url: parseBase(url), servers: parseServers(servers), syncMinutes: parseMinutes(minutes) };
}

function parseBase(text: string): string {
  if (!URL.canParse(text)) throw new RegistryConfigError('CONNECTOR__REGISTRY_URL: must be an absolute http(s) URL');
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new RegistryConfigError('CONNECTOR__REGISTRY_URL: must be an http(s) URL');
  if (url.username || url.password || url.search || url.hash) {
    throw new RegistryConfigError('CONNECTOR__REGISTRY_URL: must carry no credentials, query or fragment');
  }
  return url.toString().replace(/\/+$/, '');
}

function parseServers(text: string | undefined): RegistryServerEntry[] {
  if (!text) throw new RegistryConfigError('CONNECTOR__REGISTRY_SERVERS: required with CONNECTOR__REGISTRY_URL (the allow-list of server names)');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new RegistryConfigError(`CONNECTOR__REGISTRY_SERVERS: not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(raw)) throw new RegistryConfigError('CONNECTOR__REGISTRY_SERVERS: must be a JSON array of { name, version?, overlay? }');
  const entries = raw.map((entry, index) => {
    const parsed = RegistryServerEntrySchema.safeParse(entry);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length ? issue.path.join('.') : '(entry)';
    const name = typeof (entry as { name?: unknown })?.name === 'string' ? ` (${(entry as { name: string }).name})` : '';
    throw new RegistryConfigError(`CONNECTOR__REGISTRY_SERVERS entry ${index}${name}, field ${field}: ${issue.message}`);
  });
  const seen = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    if (seen.has(entry.name)) throw new RegistryConfigError(`CONNECTOR__REGISTRY_SERVERS entry ${index}: ${entry.name} is listed twice`);
    seen.add(entry.name);
  }
  return entries;
}

function parseMinutes(text: string | undefined): number {
  if (text === undefined) return 60;
  const minutes = Number(text);
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > 10_080) {
    throw new RegistryConfigError('CONNECTOR__REGISTRY_SYNC_MINUTES: must be a whole number of minutes from 1 to 10080');
  }
  return minutes;
}
