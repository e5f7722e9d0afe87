// One toolset as an MCP server (the SDK v2 low-level Server), built per 2026-07-28 request or per
// 2025-11-25 session: tools/list is the union of the connected members' tools, prefixed, filtered
// by each member's allow/deny and by the caller's grant, in pages; tools/call goes to the member
// whose prefix the name carries, through that member's own client.
import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type ListToolsResult, type Tool } from '@modelcontextprotocol/server';
import { TOOL_SEPARATOR, type ToolsetMember } from '../../contract/toolset-record';
import { grants, memberOffers } from './access';
import { memberUnavailableError } from './member-errors';
import { unavailableIn } from './member-fetch';
import { getPrompt, listPrompts, listResources, readResource } from './member-extras';
import { memberOf } from './member-of';
import type { ToolsetContext } from './toolset-context';


export function toolsetServer(ctx: ToolsetContext): Server {
  const capabilities = { tools: { listChanged: true }, prompts: {}, resources: {} };
  const server = new Server({ name: `toolset ${ctx.toolset.name}`, version: '1.0.0' }, { capabilities });
  server.setRequestHandler('prompts/list', async () => listPrompts(ctx));
  server.setRequestHandler('prompts/get', async (request) => getPrompt(ctx, request.params.name, request.params.arguments));
  server.setRequestHandler('resources/list', async () => listResources(ctx));
  server.setRequestHandler('resources/read', async (request) => readResource(ctx, request.params.uri));
  server.setRequestHandler('tools/list', async (request) => listPage(ctx, request.params?.cursor));
  server.setRequestHandler('tools/call', async (request) => {
    const urlElicitation = server.getClientCapabilities()?.elicitation?.url !== undefined;
    return callTool(ctx, request.params.name, request.params.arguments, urlElicitation);
  });
  return server;
}

async function listPage(ctx: ToolsetContext, cursor: string | undefined): Promise<ListToolsResult> {
  const offset = cursor === undefined ? 0 : offsetOf(cursor);
  const tools = await toolsOf(ctx);
  const page = tools.slice(offset, offset + ctx.pageSize);
  const next = offset + ctx.pageSize;
  return next < tools.length ? { tools: page, nextCursor: Buffer.from(JSON.stringify({ o: next })).toString('base64url') } : { tools: page };
}

function offsetOf(cursor: string): number {
  try {
    const o = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown }).o;
    if (typeof o === 'number' && Number.isInteger(o) && o >= 0) return o;
  } catch {
    // fall through
  }
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
}

/** Every tool the caller may see, members in their order; a member not connected adds none. */
async function toolsOf(ctx: ToolsetContext): Promise<Tool[]> {
  const lists = await Promise.all(ctx.toolset.members.map((member) => memberTools(ctx, member)));
  const seen = new Set<string>();
  return lists.flat().filter((tool) => !seen.has(tool.name) && seen.add(tool.name));
}

async function memberTools(ctx: ToolsetContext, member: ToolsetMember): Promise<Tool[]> {
  const id = member.connector_id;
  try {
    const route = await ctx.routes.get(id);
    if (route.kind !== 'connected') return [];
    const tools = await ctx.catalog.tools(id, route, () => ctx.clients.with(id, async (client) => {
      const list = await client.listTools();
      const ttlMs = (list as { ttlMs?: unknown }).ttlMs;
      return { tools: list.tools as Tool[], ...(typeof ttlMs === 'number' ? { ttlMs } : {}) };
    }));
    return tools
      .filter((tool) => memberOffers(member, tool.name))
      .map((tool) => ({ ...tool, name: `${member.prefix}${TOOL_SEPARATOR}${tool.name}` }))
      .filter((tool) => grants(ctx.grant, tool.name));
  } catch (err) {
    // A member that cannot list now lists nothing; the others still do.
    ctx.logger.warn({ toolsetId: ctx.toolset.id, connectorId: id, err: (err as Error)?.message }, 'toolset member did not list its tools');
    return [];
  }
}


async function callTool(ctx: ToolsetContext, name: string, args: Record<string, unknown> | undefined, urlElicitation: boolean): Promise<CallToolResult> {
  const member = memberOf(ctx.toolset, name);
  const own = member ? name.slice(member.prefix.length + TOOL_SEPARATOR.length) : '';
  // A tool the caller may not use is as unknown as one that does not exist.
  if (!member || !grants(ctx.grant, name) || !memberOffers(member, own)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  }
  const route = await ctx.routes.get(member.connector_id);
  if (route.kind !== 'connected') throw await memberUnavailableError(member, route, ctx.source, urlElicitation);
  try {
    return (await ctx.clients.with(member.connector_id, (client) => client.callTool({ name: own, arguments: args }))) as CallToolResult;
  } catch (err) {
    const unavailable = unavailableIn(err);
    if (unavailable) throw await memberUnavailableError(member, unavailable.route, ctx.source, urlElicitation);
    throw err;
  }
}
