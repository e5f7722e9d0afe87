// The connector record and its audit trail: one shape, written by the workflow's projection,
// stored by store/, answered by the API and described by the OpenAPI document. Everything that
// shows a connector derives from these schemas, so the layers cannot drift apart.
import { z } from 'zod';
import { STATES } from './connector-states';
import { maskedUrl } from './display-url';
import { mcpUrl } from './public-paths';
import { ApprovalRuleSchema } from './approvals';

/** How the service authenticates to the MCP server: one word, the same in the record, the audit and the console. */
export const AUTH_KINDS = ['none', 'bearer', 'authorization_code', 'client_credentials', 'enterprise_managed', 'workload_identity'] as const;
export type AuthKind = (typeof AUTH_KINDS)[number];

const AUTH_KIND_DESCRIPTION = 'How the last successful connect authenticates to the MCP server. none: it needs no authorization. '
  + 'bearer: the access_token the connect gave. authorization_code: the code flow a user authorized. '
  + 'client_credentials: the service obtains its own tokens with the client credentials the connect gave (SEP-1046). '
  + "enterprise_managed: with the user's identity assertion the connect gave, exchanged at the enterprise identity provider (SEP-990). "
  + "workload_identity: with the service's own workload identity token (SEP-1933)";

const CodeAuthRequestSchema = z
  .object({
    type: z.literal('code'),
    authorization_endpoint: z.string(),
    expires_at: z.string(),
  })
  .meta({ id: 'CodeAuthRequest', description: 'A user opens authorization_endpoint in a browser before expires_at' });

// An enterprise-managed grant (SEP-990) has no browser flow: what it needs is a fresh identity
// assertion, which only the platform or the signed-in user can give, by connecting again.
const AssertionAuthRequestSchema = z
  .object({
    type: z.literal('assertion'),
    needs: z.literal('id_token'),
    issuer: z.string().nullable().meta({ description: 'The iss of the ID token that expired or was refused: where to get a fresh one (null: it named none)' }),
    message: z.string(),
  })
  .meta({ id: 'AssertionAuthRequest', description: 'Connect again with grant enterprise_managed and a fresh id_token (no URL to open)' });

export const AuthRequestSchema = z
  .discriminatedUnion('type', [CodeAuthRequestSchema, AssertionAuthRequestSchema])
  .meta({
    id: 'AuthRequest',
    description: 'The authorization on offer: while auth_required, or while connected when the MCP server asked for more scope (a step-up). '
      + "code: a URL a user opens; assertion: an enterprise-managed grant's identity assertion expired or was refused, a connect with a fresh id_token brings the connector back",
  });
export type AuthRequest = z.infer<typeof AuthRequestSchema>;


const APPROVAL_RULES_DESCRIPTION = "The owner's rules: tools (globs over the server's tool names) whose calls wait for an approver the rule names. "
  + "The operator's rules (CONNECTOR__APPROVAL_TOOLS) match first, so these can only add to them; first match wins";

/** What the workflow projects: the connector as of its transition number `version`. */
export const ConnectorRecordSchema = z.object({
  id: z.uuid(),
  url: z.string().meta({ description: 'As given at creation, normalised; in answers, user info and the values of query parameters named like secrets (api_key, token, signature, ...) read ***' }),
  state: z.enum(STATES),
  metadata: z.record(z.string(), z.string()),
  auth_request: AuthRequestSchema.nullable(),
  disconnect_reason: z.string().nullable(),
  disconnect_permanent: z.boolean().nullable(),
  preset: z.object({ url: z.string() }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  created_by: z.string().nullable().meta({ description: 'The owner, qualified by where its identity comes from: key:<subject> (an API key), oidc:<subject> (the identity provider)' }),
  /** Absent in records projected before it existed. */
  created_by_name: z.string().nullable().optional(),
  /** The MCP revision negotiated at the last successful connect (null: never connected, or a stdio workload). */
  protocol_version: z.string().nullable().meta({ description: 'The MCP revision negotiated with the server at the last successful connect (2026-07-28, 2025-11-25, …).' }),
  /** Absent before the first connect, after a permanent disconnect, and in records projected before it existed; never a secret. */
  auth_kind: z.enum(AUTH_KINDS).optional().meta({ description: AUTH_KIND_DESCRIPTION }),
  /** Absent: a Bearer token, or none. */
  token_binding: z.enum(['dpop']).optional().meta({
    description: "dpop: the connector's token is bound to a key of the connector's own (RFC 9449, SEP-1932); the service presents it with a proof on every request",
  }),
  /** Absent: streamable-http. */
  transport: z.literal('sse').optional().meta({
    description: 'sse: the MCP server speaks the HTTP+SSE transport of 2024-11-05; the proxy serves it to clients as Streamable HTTP (absent: Streamable HTTP)',
  }),
  /** Absent: the last connect bound none. */
  headers: z.array(z.string()).optional()
    .meta({ description: 'The names of the headers the last connect gave for the MCP server (their values are never shown)' }),
  variables: z.record(z.string(), z.string()).optional()
    .meta({ description: 'The URL variables the last connect bound: url keeps the template, the server is reached with these filled in' }),
  /** Absent: none (and in records projected before it existed). */
  approval_rules: z.array(ApprovalRuleSchema).optional(),
  version: z.number().int(),
});
export type ConnectorRecord = z.infer<typeof ConnectorRecordSchema>;

/** A version of a record as the workflow wrote it, and the state its list keys were filed under. */
export interface ProjectedVersion {
  version: number;
  state: ConnectorRecord['state'];
}

/** The record as the API answers it: its MCP address instead of the projection's version. */
export const ConnectorSchema = ConnectorRecordSchema.omit({ version: true })
  .extend({
    created_by_name: z.string().nullable().meta({ description: "The owner's readable name, captured at creation (the token's email or name claim, else the key's subject)" }),
    approval_rules: z.array(ApprovalRuleSchema).meta({ description: APPROVAL_RULES_DESCRIPTION }),
    mcp_url: z.string(),
  })
  .meta({ id: 'Connector' });
export type Connector = z.infer<typeof ConnectorSchema>;

/**
 * The record as the API answers it. The stored record keeps the URL whole (the service reaches
 * the server with it); the answer masks what the query or user info may hold (maskedUrl).
 */
export function presentConnector(record: ConnectorRecord, baseUrl: string): Connector {
  const { version: _version, ...rest } = record;
  return {
    ...rest,
    created_by_name: rest.created_by_name ?? null,
    approval_rules: rest.approval_rules ?? [],
    url: maskedUrl(record.url),
    preset: record.preset && { ...record.preset, url: maskedUrl(record.preset.url) },
    mcp_url: mcpUrl(baseUrl, 'connectors', record.id),
  };
}

export const ConnectorEventSchema = z
  .object({
    seq: z.number().int(),
    time: z.string(),
    actor: z.string(),
    from: z.enum(STATES).nullable(),
    to: z.enum(STATES),
    reason: z.string().nullable(),
    /** Set on a transition to `connected` that followed a handshake: the MCP revision negotiated. */
    protocol_version: z.string().optional(),
    /** Set on a transition to `connected` by a connect: how it authenticates (never a secret). */
    auth_kind: z.enum(AUTH_KINDS).optional().meta({ description: AUTH_KIND_DESCRIPTION }),
  })
  .meta({ id: 'ConnectorEvent' });
export type ConnectorEventRecord = z.infer<typeof ConnectorEventSchema>;

/** One transition on record: the workflow writes it, the store keeps it per connector. */
export type AuditEvent = ConnectorEventRecord & { connectorId: string };

export const ConnectorListSchema = z
  .object({
    items: z.array(ConnectorSchema),
    total_count: z.number().int(),
    total_count_exact: z.boolean().meta({
      description: 'false while a change of this list is being written, or was cut by a crash and not yet repaired (seconds after the worker restarts): total_count may then be off',
    }),
    has_more: z.boolean(),
    next_page_token: z.string().nullable(),
  })
  .meta({ id: 'ConnectorList' });

export const EventListSchema = z
  .object({
    items: z.array(ConnectorEventSchema),
    total_count: z.number().int(),
    has_more: z.boolean(),
    next_page_token: z.string().nullable(),
  })
  .meta({ id: 'ConnectorEventList' });
