// /api/v1/toolsets: create, list, get, patch (JSON merge patch), delete, calls. Owner-scoped
// exactly like connectors: another owner's toolset answers 404 like one that does not exist.
import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import { mayAccess } from '../../callers/caller';
import { isConnectorId } from '../../contract/connector-id';
import { ProblemError } from '../../contract/problem';
import { PatchToolsetSchema, presentToolset, type ToolsetRecord } from '../../contract/toolset-record';
import type { CallAuditStore } from '../../store/call-audit-store';
import type { ConnectorStore } from '../../store/connector-store';
import { InvalidPageToken } from '../../store/page-token';
import type { TaskStore } from '../../store/task-store';
import type { ToolsetStore } from '../../store/toolset-store';
import { callerOf } from '../caller-middleware';
import { parseWith } from '../parse';
import type { Handler } from '../router';
import { resolveMembers } from '../toolset-members';
import { mergePatchBody } from '../merge-patch-body';
import type { OwnerSource } from '../workflow-owners';
import { withOwnerSlot, type OwnerQuota } from '../owner-quota';

/** The most a toolset may hold, as stored: far beyond any toolset people write (a thousand patterns), and far below the body limit. */
export const MAX_TOOLSET_BYTES = 64 * 1024;

export interface ToolsetRouteDeps {
  /** Absent: this process serves no toolsets, and every toolset path answers 404. */
  toolsets?: ToolsetStore;
  store: ConnectorStore;
  callStore: CallAuditStore;
  tasks: TaskStore;
  baseUrl: string;
  /** Told of every toolset changed or deleted (a toolset server in the same process). */
  onToolsetChanged?: (toolsetId: string) => void;
  /** Whose each connector is, per its workflow: a member must be the caller's (workflow-owners.ts). */
  owners: OwnerSource;
  /** CONNECTOR__MAX_TOOLSETS_PER_OWNER. */
  maxToolsetsPerOwner: number;
}

type ToolsetOperation = 'createToolset' | 'listToolsets' | 'getToolset' | 'patchToolset' | 'deleteToolset' | 'listToolsetCalls' | 'listToolsetTasks';

/** The handlers of the toolset operations (declared in contract/operations.ts). */
export function toolsetHandlers(deps: ToolsetRouteDeps): { [K in ToolsetOperation]: Handler<K> } {
  const present = (record: ToolsetRecord) => presentToolset(record, deps.baseUrl);
  const changed = (id: string) => deps.onToolsetChanged?.(id);
  const store = () => deps.toolsets ?? notServed();
  return {
    async createToolset(ctx, input) {
      const toolsets = store();
      const body = input.body();
      const caller = callerOf(ctx);
      const now = new Date().toISOString();
      const record: ToolsetRecord = {
        id: randomUUID(), name: body.name, description: body.description ?? '',
        members: await resolveMembers(body.members, caller, deps.store, deps.owners), access: body.access ?? [],
        ...(body.approval_rules?.length ? { approval_rules: body.approval_rules } : {}),
        created_by: caller.subject, created_at: now, updated_at: now,
      };
      refuseOversize(record);
      await withOwnerSlot(caller.subject, record.id, quotaOf(toolsets, deps.maxToolsetsPerOwner), () => toolsets.insert(record));
      ctx.status = 201;
      ctx.set('Location', `/api/v1/toolsets/${record.id}`);
      ctx.body = present(record);
    },

    async listToolsets(ctx, input) {
      const toolsets = store();
      const query = input.query();
      const caller = callerOf(ctx);
      const createdBy = caller.admin ? query.created_by : caller.subject ?? undefined;
      const page = await pageOr422(() => toolsets.list({ limit: query.limit, pageToken: query.page_token, createdBy }));
      ctx.body = { ...page, items: page.items.map(present) };
    },

    async getToolset(ctx) {
      ctx.body = present(await existing(ctx, store()));
    },

    // The body is read here, not through input.body(): a merge patch comes as application/merge-patch+json.
    async patchToolset(ctx) {
      const toolsets = store();
      const patch = parseWith(PatchToolsetSchema, await mergePatchBody(ctx), 'request body');
      const caller = callerOf(ctx);
      // Compare-and-set: a PATCH that raced another is applied again over what that one left.
      for (;;) {
        const before = await existing(ctx, toolsets);
        const after: ToolsetRecord = {
          ...before,
          name: patch.name ?? before.name,
          description: patch.description === undefined ? before.description : patch.description ?? '',
          members: patch.members === undefined ? before.members : await resolveMembers(patch.members, caller, deps.store, deps.owners),
          access: patch.access === undefined ? before.access : patch.access ?? [],
          approval_rules: patch.approval_rules === undefined ? before.approval_rules ?? [] : patch.approval_rules ?? [],
          updated_at: laterThan(before.updated_at),
        };
        refuseOversize(after);
        if (await toolsets.replace(before, after)) {
          changed(after.id);
          ctx.body = present(after);
          return;
        }
      }
    },

    async deleteToolset(ctx) {
      const toolsets = store();
      const { id } = await existing(ctx, toolsets);
      if (!(await toolsets.delete(id))) throw new ProblemError(404, 'no such toolset');
      changed(id);
      ctx.status = 204;
    },

    // The per-call audit of the toolset's MCP traffic, newest first (each call names its member).
    async listToolsetCalls(ctx, input) {
      const { id } = await existing(ctx, store());
      const { page_token, ...query } = input.query();
      ctx.body = await pageOr422(() => deps.callStore.list(id, { ...query, pageToken: page_token }));
    },

    // The tasks the service runs for calls made through the toolset (MCP Tasks), newest first: never their contents.
    async listToolsetTasks(ctx, input) {
      const { id } = await existing(ctx, store());
      const query = input.query();
      ctx.body = await pageOr422(() => deps.tasks.list({ toolset_id: id }, { limit: query.limit, pageToken: query.page_token }));
    },
  };
}

function quotaOf(toolsets: ToolsetStore, limit: number): OwnerQuota {
  return {
    slots: toolsets.slots, limit, what: 'toolsets', variable: 'CONNECTOR__MAX_TOOLSETS_PER_OWNER',
    count: (owner) => toolsets.countOwnedBy(owner), exists: async (id) => (await toolsets.get(id)) !== null,
  };
}

/** A toolset is read whole on every call to it: its size is bounded, whatever its lists' own bounds allow together. */
function refuseOversize(record: ToolsetRecord): void {
  const bytes = Buffer.byteLength(JSON.stringify(record));
  if (bytes <= MAX_TOOLSET_BYTES) return;
  const message = `the toolset would take ${bytes} bytes; at most ${MAX_TOOLSET_BYTES} are allowed (fewer or shorter patterns, rules or members)`;
  throw new ProblemError(422, message, undefined, [{ path: '(body)', message }]);
}

function notServed(): never {
  throw new ProblemError(404, 'no such toolset');
}

/** The toolset, if the caller may see it; another owner's is as absent as a missing one. */
async function existing(ctx: Context, toolsets: ToolsetStore): Promise<ToolsetRecord> {
  const id = String(ctx.params.id ?? '').toLowerCase();
  const record = isConnectorId(id) ? await toolsets.get(id) : null;
  if (!record || !mayAccess(callerOf(ctx), record.created_by)) throw new ProblemError(404, 'no such toolset');
  return record;
}

/** A timestamp after `previous`, even within the same millisecond: it is the compare-and-set's version. */
function laterThan(previous: string): string {
  const now = Date.now();
  const before = Date.parse(previous);
  return new Date(now > before ? now : before + 1).toISOString();
}

async function pageOr422<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof InvalidPageToken) throw new ProblemError(422, err.message, undefined, [{ path: 'page_token', message: err.message }]);
    throw err;
  }
}
