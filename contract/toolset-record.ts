// The toolset: several connectors served as one MCP server. One shape for the request bodies,
// the stored record and the answer, so that the API, the store and the OpenAPI document agree.
import { z } from 'zod';
import { mcpUrl } from './public-paths';
import { CallerPatternSchema, GlobSchema } from './caller-patterns';
import { ApprovalRuleSchema, OwnerApprovalRulesSchema } from './approvals';

export { CallerPatternSchema, GlobSchema } from './caller-patterns';

/**
 * A member's prefix: its tools are named `<prefix>__<tool>`. No `__` in it and no `_` at its end,
 * so that a prefixed name reads one way only (at its first `__`), and a grant `gh__*` never
 * reaches a member prefixed `gh__admin`.
 */
export const PREFIX = /^(?!.*__)(?!.*_$)[a-z0-9_-]{1,32}$/;
export const PREFIX_RULE = 'must match [a-z0-9_-]{1,32}, without __ and not ending in _';
export const TOOL_SEPARATOR = '__';

const GlobListSchema = z.array(GlobSchema).max(256);

export const ToolFilterSchema = z
  .strictObject({
    allow: GlobListSchema.optional().meta({ description: "Glob patterns over the member's own tool names; absent: every tool" }),
    deny: GlobListSchema.optional().meta({ description: 'Glob patterns over the member\'s own tool names, applied after allow' }),
  });

export const ToolsetMemberInputSchema = z.strictObject({
  connector_id: z.string().min(1).max(64),
  prefix: z.string().regex(PREFIX, PREFIX_RULE).optional()
    .meta({ description: "Default: a slug of the connector's metadata.name, else of its id" }),
  tools: ToolFilterSchema.optional(),
});

export const AccessRuleSchema = z
  .strictObject({
    callers: z.array(CallerPatternSchema).min(1).max(64),
    allow: z.array(GlobSchema).min(1).max(256).meta({ description: 'Glob patterns over the prefixed tool names (<prefix>__<tool>)' }),
  })
  .meta({ id: 'ToolsetAccessRule' });
export type AccessRule = z.infer<typeof AccessRuleSchema>;

const NameSchema = z.string().min(1).max(128);
const DescriptionSchema = z.string().max(2048);
const MembersSchema = z.array(ToolsetMemberInputSchema).max(64);
const AccessSchema = z.array(AccessRuleSchema).max(64);
const ToolsetApprovalRulesSchema = OwnerApprovalRulesSchema.meta({
  description: "Tools (globs over the prefixed names, <prefix>__<tool>) whose calls through the toolset wait for a named approver; the operator's rules and the member connector's own rules apply too, before these",
});

export const CreateToolsetSchema = z
  .strictObject({
    name: NameSchema,
    description: DescriptionSchema.optional(),
    members: MembersSchema,
    access: AccessSchema.optional(),
    approval_rules: ToolsetApprovalRulesSchema.optional(),
  })
  .meta({ id: 'CreateToolsetRequest' });
export type CreateToolsetRequest = z.infer<typeof CreateToolsetSchema>;

/** RFC 7396: a member left out stays as it is, null removes the optional ones (description, access). */
export const PatchToolsetSchema = z
  .strictObject({
    name: NameSchema.optional(),
    description: DescriptionSchema.nullable().optional(),
    members: MembersSchema.optional(),
    access: AccessSchema.nullable().optional(),
    approval_rules: ToolsetApprovalRulesSchema.nullable().optional(),
  })
  .meta({ id: 'PatchToolsetRequest' });
export type PatchToolsetRequest = z.infer<typeof PatchToolsetSchema>;

export const ToolsetMemberSchema = z.object({
  connector_id: z.string(),
  prefix: z.string(),
  tools: z.object({ allow: z.array(z.string()), deny: z.array(z.string()) }),
});
export type ToolsetMember = z.infer<typeof ToolsetMemberSchema>;

/** What the store keeps. */
export const ToolsetRecordSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string(),
  members: z.array(ToolsetMemberSchema),
  access: z.array(AccessRuleSchema),
  /** Absent in records stored before it existed: none. */
  approval_rules: z.array(ApprovalRuleSchema).optional(),
  created_by: z.string().nullable().meta({ description: 'The owner: key:<subject> or oidc:<subject>' }),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ToolsetRecord = z.infer<typeof ToolsetRecordSchema>;

export const ToolsetSchema = ToolsetRecordSchema.extend({ approval_rules: ToolsetApprovalRulesSchema, mcp_url: z.string() }).meta({ id: 'Toolset' });
export type Toolset = z.infer<typeof ToolsetSchema>;

export const ToolsetListSchema = z
  .object({ items: z.array(ToolsetSchema), total_count: z.number().int(), has_more: z.boolean(), next_page_token: z.string().nullable() })
  .meta({ id: 'ToolsetList' });

export const ListToolsetsQuerySchema = z
  .strictObject({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    page_token: z.string().max(512).optional(),
    created_by: z.string().min(1).max(256).optional().meta({ description: "Admins only: one owner's toolsets (key:<subject> or oidc:<subject>)" }),
  })
  .meta({ id: 'ListToolsetsQuery' });

export function presentToolset(record: ToolsetRecord, baseUrl: string): Toolset {
  return { ...record, approval_rules: record.approval_rules ?? [], mcp_url: mcpUrl(baseUrl, 'toolsets', record.id) };
}

/**
 * The default prefix: a slug of the connector's name, else of its id (a UUID's 32 hex digits,
 * the dashes dropped so that it fits the 32 characters a prefix may have).
 */
export function defaultPrefix(connector: { id: string; metadata: Record<string, string> }): string {
  const name = slug(connector.metadata.name ?? '');
  return name || connector.id.replace(/-/g, '').slice(0, 32);
}

function slug(text: string): string {
  const dashed = text.toLowerCase().normalize('NFKD').replace(/[^a-z0-9_-]+/g, '-').replace(/-{2,}/g, '-').replace(/_{2,}/g, '_');
  return dashed.replace(/^[-_]+|[-_]+$/g, '').slice(0, 32).replace(/[-_]+$/, '');
}

/** A member's 2025-era MCP session, held for a caller (a toolset session's or a 2026 caller's). */
export interface MemberSessionRecord {
  /** The member's Mcp-Session-Id; null for a server that keeps no sessions. */
  sessionId: string | null;
  protocolVersion: string;
  /** Which of the member sessions opened for the caller it is (the store counts them). */
  generation?: number;
}

/** A 2025-11-25 toolset session as any proxy replica reads it (store/toolset-session-store.ts). */
export interface ToolsetSessionRecord {
  toolsetId: string;
  /** The revision agreed with the client. */
  protocolVersion: string;
  /** What the client declared in `initialize`, passed on to the members. */
  clientCapabilities: Record<string, unknown>;
  clientInfo: Record<string, unknown>;
  /** The members' sessions opened for it so far, by connector id. */
  members: Record<string, MemberSessionRecord>;
  /** Last use, ms since the epoch: the session expires when idle for longer than the idle timeout. */
  usedAt: number;
}
