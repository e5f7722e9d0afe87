// Prompts and resources of the members, served with the same prefixing as tools: prompt names
// `<prefix>__<name>`, resource URIs mapped reversibly (resource-uris.ts) and names prefixed. The
// caller's grant applies to the prefixed names as it does to tools; a member that has none, or is
// not connected, adds none. Not cached: they are asked far less often than tools.
import { ProtocolError, ProtocolErrorCode, type GetPromptResult, type Prompt, type ReadResourceResult, type Resource } from '@modelcontextprotocol/server';
import { TOOL_SEPARATOR, type ToolsetMember } from '../../contract/toolset-record';
import { grants } from './access';
import { memberUnavailableError } from './member-errors';
import { unavailableIn } from './member-fetch';
import { memberUri, toolsetUri } from './resource-uris';
import { memberOf } from './member-of';
import type { ToolsetContext } from './toolset-context';

const prefixed = (member: ToolsetMember, name: string) => `${member.prefix}${TOOL_SEPARATOR}${name}`;

async function fromConnected<T>(ctx: ToolsetContext, ask: (member: ToolsetMember) => Promise<T[]>): Promise<T[]> {
  const lists = await Promise.all(ctx.toolset.members.map(async (member) => {
    const route = await ctx.routes.get(member.connector_id).catch(() => null);
    if (route?.kind !== 'connected') return [];
    return ask(member).catch(() => [] as T[]);
  }));
  return lists.flat();
}

export function listPrompts(ctx: ToolsetContext): Promise<{ prompts: Prompt[] }> {
  return fromConnected(ctx, (member) => ctx.clients.with(member.connector_id, async (client) => {
    if (!client.getServerCapabilities()?.prompts) return [];
    return ((await client.listPrompts()).prompts as Prompt[])
      .map((prompt) => ({ ...prompt, name: prefixed(member, prompt.name) }))
      .filter((prompt) => grants(ctx.grant, prompt.name));
  })).then((prompts) => ({ prompts }));
}

export async function getPrompt(ctx: ToolsetContext, name: string, args: Record<string, string> | undefined): Promise<GetPromptResult> {
  const member = memberOf(ctx.toolset, name);
  if (!member || !grants(ctx.grant, name)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
  const own = name.slice(member.prefix.length + TOOL_SEPARATOR.length);
  return relayed(ctx, member, (client) => client.getPrompt({ name: own, arguments: args }) as Promise<GetPromptResult>);
}

export function listResources(ctx: ToolsetContext): Promise<{ resources: Resource[] }> {
  return fromConnected(ctx, (member) => ctx.clients.with(member.connector_id, async (client) => {
    if (!client.getServerCapabilities()?.resources) return [];
    return ((await client.listResources()).resources as Resource[])
      .map((resource) => ({ ...resource, uri: toolsetUri(member.prefix, resource.uri), name: prefixed(member, resource.name) }))
      .filter((resource) => grants(ctx.grant, resource.name));
  })).then((resources) => ({ resources }));
}

export async function readResource(ctx: ToolsetContext, uri: string): Promise<ReadResourceResult> {
  const mapped = memberUri(uri);
  const member = mapped && ctx.toolset.members.find((m) => m.prefix === mapped.prefix);
  if (!mapped || !member || (!ctx.grant.all && !(await listResources(ctx)).resources.some((r) => r.uri === uri))) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource: ${uri}`, { uri });
  }
  const result = await relayed(ctx, member, (client) => client.readResource({ uri: mapped.uri }) as Promise<ReadResourceResult>);
  return { ...result, contents: result.contents.map((c) => ({ ...c, uri: toolsetUri(member.prefix, c.uri) })) };
}

async function relayed<T>(ctx: ToolsetContext, member: ToolsetMember, ask: (client: Parameters<Parameters<ToolsetContext['clients']['with']>[1]>[0]) => Promise<T>): Promise<T> {
  const route = await ctx.routes.get(member.connector_id);
  if (route.kind !== 'connected') throw await memberUnavailableError(member, route, ctx.source, false);
  try {
    return await ctx.clients.with(member.connector_id, ask);
  } catch (err) {
    const unavailable = unavailableIn(err);
    if (unavailable) throw await memberUnavailableError(member, unavailable.route, ctx.source, false);
    throw err;
  }
}
