// The MCP Registry API's answers (`/v0.1/servers`), parsed at the boundary. The registry is
// untrusted: fields this service acts on (names, versions, URLs, identifiers, arguments,
// environment variables, headers) are checked strictly and bounded; fields with no security
// meaning (repository, icons, publisher metadata) are dropped unread (objects strip unknown keys,
// so that nothing unvetted, such as a dotted key the database refuses, is ever stored).
import { z } from 'zod';
import { ServerNameSchema } from './registry-config';

/** Printable text without control characters: nothing a terminal or a log line would act on. */
const Text = (max: number) => z.string().max(max).regex(/^[^\u0000-\u001f\u007f]*$/, 'must not hold control characters');

const InputSchema = z.object({
  description: z.string().max(4096).optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  format: z.string().max(32).optional(),
  value: Text(2048).optional(),
  default: Text(2048).optional(),
  choices: z.array(z.string().max(512)).max(64).optional(),
});
const InputWithVariablesSchema = InputSchema.extend({
  variables: z.record(z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be a plain identifier'), InputSchema).refine((v) => Object.keys(v).length <= 32, 'at most 32 variables').optional(),
});
export const KeyValueInputSchema = InputWithVariablesSchema.extend({ name: Text(256).min(1) });
export type KeyValueInput = z.infer<typeof KeyValueInputSchema>;

export const ArgumentSchema = InputWithVariablesSchema.extend({
  type: z.enum(['positional', 'named']),
  name: Text(256).optional(),
  valueHint: Text(256).optional(),
  isRepeated: z.boolean().optional(),
});
export type Argument = z.infer<typeof ArgumentSchema>;

export const TransportSchema = z.object({
  type: z.string().min(1).max(64),
  url: Text(2048).optional(),
  headers: z.array(KeyValueInputSchema).max(32).optional(),
  variables: InputWithVariablesSchema.shape.variables,
});
export type Transport = z.infer<typeof TransportSchema>;

export const PackageSchema = z.object({
  registryType: z.string().min(1).max(32),
  registryBaseUrl: z.string().max(2048).optional(),
  identifier: Text(512).min(1),
  version: Text(255).optional(),
  runtimeHint: z.string().max(64).optional(),
  transport: TransportSchema,
  runtimeArguments: z.array(ArgumentSchema).max(64).optional(),
  packageArguments: z.array(ArgumentSchema).max(64).optional(),
  environmentVariables: z.array(KeyValueInputSchema).max(64).optional(),
});
export type Package = z.infer<typeof PackageSchema>;

export const ServerDetailSchema = z.object({
  name: ServerNameSchema,
  // The registry caps descriptions at 100 characters; a sub-registry may not: kept within metadata's limit.
  description: z.string().max(4096).default(''),
  title: z.string().max(512).optional(),
  version: Text(255).min(1),
  websiteUrl: z.string().max(2048).optional(),
  packages: z.array(PackageSchema).max(32).optional(),
  remotes: z.array(TransportSchema).max(32).optional(),
});
export type ServerDetail = z.infer<typeof ServerDetailSchema>;

export const REGISTRY_STATUSES = ['active', 'deprecated', 'deleted'] as const;
export type RegistryStatus = (typeof REGISTRY_STATUSES)[number];

const OFFICIAL = 'io.modelcontextprotocol.registry/official';

export const OfficialMetaSchema = z.looseObject({
  // An unknown status is read as active: the registry may add statuses, and only two mean anything here.
  status: z.string().max(32).optional().transform((s): RegistryStatus => (s === 'deprecated' || s === 'deleted' ? s : 'active')),
  updatedAt: z.iso.datetime({ offset: true }).optional(),
  publishedAt: z.iso.datetime({ offset: true }).optional(),
  isLatest: z.boolean().optional(),
});

/** One entry of a list: the registry wraps each server.json as `{ server, _meta }`. */
export const ServerResponseSchema = z.looseObject({
  server: ServerDetailSchema,
  _meta: z.looseObject({ [OFFICIAL]: OfficialMetaSchema.optional() }).optional(),
});
export type ServerResponse = z.infer<typeof ServerResponseSchema>;

/** A page; entries are parsed one by one (a bad entry is skipped, not the whole page). */
export const ServerListSchema = z.looseObject({
  servers: z.array(z.unknown()).max(1000),
  metadata: z.looseObject({
    nextCursor: z.string().max(2048).nullish(),
    count: z.number().optional(),
  }).optional(),
});

/** What a sync keeps of one entry. */
export interface RegistryEntry {
  name: string;
  version: string;
  status: RegistryStatus;
  updatedAt: string | null;
  isLatest: boolean | null;
  server: ServerDetail;
}

export function entryOf(response: ServerResponse): RegistryEntry {
  const official = response._meta?.[OFFICIAL];
  return {
    name: response.server.name,
    version: response.server.version,
    status: official?.status ?? 'active',
    updatedAt: official?.updatedAt ?? null,
    isLatest: official?.isLatest ?? null,
    server: response.server,
  };
}
