// What a toolset lists: the union of its connected members' tools, prompts and resources, each
// named `<prefix>__<name>` (resource URIs mapped reversibly, resource-uris.ts), filtered by the
// member's allow/deny (tools) and the caller's grant. A member that is not connected, whose token
// this toolset may not use (access.ts), or that cannot answer now, adds nothing; the others still
// do. Tool lists are cached per member and owner (tool-catalog.ts); prompts and resources, asked
// far less often, are not.
import type { ToolsetMember } from '../../contract/toolset-record';
import type { ConnectedRoute } from '../route';
import { grants, mayUse, memberOffers, prefixed, servable } from './access';
import { responseOf } from './member-answer';
import { toolsetUri } from './resource-uris';
import { RpcFailure, isObject, type RpcMessage } from './rpc';
import type { Tool, ToolList } from './tool-catalog';
import type { ToolsetContext } from './toolset-context';

type Item = { name: string } & Record<string, unknown>;

const MAX_PAGES = 100;

export async function listTools(ctx: ToolsetContext, cursor: unknown): Promise<Record<string, unknown>> {
  const offset = cursor === undefined ? 0 : offsetOf(cursor);
  const lists = await Promise.all(ctx.toolset.members.map((member) => memberTools(ctx, member)));
  const seen = new Set<string>();
  const tools = lists.flat().filter((tool) => !seen.has(tool.name) && seen.add(tool.name));
  const page = tools.slice(offset, offset + ctx.deps.pageSize);
  const next = offset + ctx.deps.pageSize;
  return next < tools.length ? { tools: page, nextCursor: Buffer.from(JSON.stringify({ o: next })).toString('base64url') } : { tools: page };
}

export async function listPrompts(ctx: ToolsetContext): Promise<Record<string, unknown>> {
  const lists = await fromConnected(ctx, (member, route) => fetchList(ctx, member, route, 'prompts/list', 'prompts'));
  return { prompts: lists.flatMap(({ member, items }) => named(ctx, member, items)) };
}

export async function listResources(ctx: ToolsetContext): Promise<Record<string, unknown>> {
  return { resources: await resourcesOf(ctx) };
}

/** Every resource the caller may read, with the toolset's URIs. */
export async function resourcesOf(ctx: ToolsetContext): Promise<Item[]> {
  const lists = await fromConnected(ctx, (member, route) => fetchList(ctx, member, route, 'resources/list', 'resources'));
  return lists.flatMap(({ member, items }) => named(ctx, member, items)
    .filter((r) => typeof r.uri === 'string')
    .map((r) => ({ ...r, uri: toolsetUri(member.prefix, r.uri as string) })));
}

async function memberTools(ctx: ToolsetContext, member: ToolsetMember): Promise<Tool[]> {
  const route = await usableRoute(ctx, member);
  if (!route) return [];
  try {
    const variant = JSON.stringify(ctx.sessions.clientCapabilities);
    const tools = await ctx.deps.catalog.tools(member.connector_id, route, () => fetchList(ctx, member, route, 'tools/list', 'tools'), variant);
    return tools
      .filter((tool) => servable(tool.name) && memberOffers(member, tool.name) && grants(ctx.grant, member, tool.name))
      .map((tool) => ({ ...tool, name: prefixed(member, tool.name) }));
  } catch (err) {
    ctx.deps.logger.warn({ toolsetId: ctx.toolset.id, connectorId: member.connector_id, err: (err as Error)?.message }, 'toolset member did not list its tools');
    return [];
  }
}

/** A member's items its own names allow and the grant covers, named as the toolset shows them. */
function named(ctx: ToolsetContext, member: ToolsetMember, items: Item[]): Item[] {
  return items.filter((item) => servable(item.name) && grants(ctx.grant, member, item.name)).map((item) => ({ ...item, name: prefixed(member, item.name) }));
}

async function fromConnected(ctx: ToolsetContext, ask: (member: ToolsetMember, route: ConnectedRoute) => Promise<ToolList>) {
  return Promise.all(ctx.toolset.members.map(async (member) => {
    const route = await usableRoute(ctx, member);
    const items = route ? await ask(member, route).then((list) => list.tools, () => [] as Item[]) : [];
    return { member, items };
  }));
}

/** The member's route when it is connected and this toolset may use its token for this caller. */
async function usableRoute(ctx: ToolsetContext, member: ToolsetMember): Promise<ConnectedRoute | null> {
  const route = await ctx.deps.routes.get(member.connector_id).catch(() => null);
  return route?.kind === 'connected' && mayUse(ctx.toolset, ctx.caller, route) ? route : null;
}

/** Every page of a member's list (`key` of each result), and its ttlMs where it gave one. */
async function fetchList(ctx: ToolsetContext, member: ToolsetMember, route: ConnectedRoute, method: string, key: string): Promise<ToolList> {
  const items: Item[] = [];
  let cursor: unknown;
  let ttlMs: number | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const id = `toolset-list-${page}`;
    const message: RpcMessage = { jsonrpc: '2.0', id, method, params: cursor === undefined ? {} : { cursor } };
    const reply = await ctx.deps.link.send({ connectorId: member.connector_id, route }, message, ctx.sessions, { signal: ctx.signal });
    const result = (reply.answer.statusCode === 200 ? await responseOf(reply.answer, id) : (reply.answer.resume(), null))?.result;
    if (!result) throw new Error(`the member answered ${method} with HTTP ${reply.answer.statusCode} and no result`);
    const listed = result[key];
    if (Array.isArray(listed)) items.push(...listed.filter((item): item is Item => isObject(item) && typeof item.name === 'string'));
    if (typeof result.ttlMs === 'number') ttlMs = result.ttlMs;
    cursor = result.nextCursor;
    if (typeof cursor !== 'string') break;
  }
  return ttlMs === undefined ? { tools: items } : { tools: items, ttlMs };
}

function offsetOf(cursor: unknown): number {
  try {
    const o = (JSON.parse(Buffer.from(String(cursor), 'base64url').toString('utf8')) as { o?: unknown }).o;
    if (typeof o === 'number' && Number.isInteger(o) && o >= 0) return o;
  } catch {
    // fall through
  }
  throw new RpcFailure({ code: -32602, message: 'Invalid cursor' });
}
