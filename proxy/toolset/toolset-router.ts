// The toolset as an MCP server: each request the toolset answers itself (ping, discovery, the
// lists) or passes to the one member its name belongs to (tools/call, prompts/get,
// resources/read: member-relay.ts streams the member's answer back). No MCP SDK in between: the
// caller's message goes to the member with its own name and nothing else changed, so its
// progressToken, its capabilities (2026 `_meta`) and its retries with inputResponses reach the
// member as they came.
import type { ServerResponse } from 'node:http';
import { grants, memberNamed, memberOffers } from './access';
import { relayToMember, unknownName } from './member-relay';
import { memberUri, toolsetUri } from './resource-uris';
import { LEGACY_VERSIONS, META, MODERN_VERSION, RpcFailure, errorMessage, isObject, paramsOf, resultMessage, type RpcId, type RpcMessage } from './rpc';
import { sendMessage } from './toolset-answers';
import { TOOLSET_CAPABILITIES, serverInfoOf, type ToolsetContext } from './toolset-context';
import { listPrompts, listResources, listTools, resourcesOf } from './toolset-lists';
import { callAsMemberTask, memberTaskRequest, taskExtension } from './toolset-tasks';
import { callHeld } from './toolset-approvals';

type Request = RpcMessage & { id: RpcId; method: string };

/** Results clients may cache (2026-07-28), for as long as the toolset can promise: not at all (its lists depend on members and grants). */
const CACHEABLE = new Set(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

export async function routeRequest(ctx: ToolsetContext, res: ServerResponse, message: Request): Promise<void> {
  const params = paramsOf(message);
  try {
    switch (message.method) {
      case 'ping': return answer(ctx, res, message, {});
      case 'server/discover': return answer(ctx, res, message, discovery(ctx));
      case 'tools/list': return answer(ctx, res, message, await listTools(ctx, params.cursor));
      case 'prompts/list': return answer(ctx, res, message, await listPrompts(ctx));
      case 'resources/list': return answer(ctx, res, message, await listResources(ctx));
      case 'resources/templates/list': return answer(ctx, res, message, { resourceTemplates: [] });
      case 'tools/call': return await callTool(ctx, res, message);
      case 'prompts/get': return await getPrompt(ctx, res, message);
      case 'resources/read': return await readResource(ctx, res, message);
      case 'tasks/get':
      case 'tasks/update':
      case 'tasks/cancel': return await memberTaskRequest(ctx, res, message);
      default:
        // 2026-07-28: an unknown method is 404 with -32601; 2025: a JSON-RPC error like any other.
        return sendMessage(res, ctx.era === 'modern' ? 404 : 200, errorMessage(message.id, { code: -32601, message: `Method not found: ${message.method}` }));
    }
  } catch (err) {
    if (err instanceof RpcFailure) return sendMessage(res, 200, errorMessage(message.id, err.error));
    if (ctx.signal.aborted) return;
    ctx.deps.logger.error({ err, toolsetId: ctx.toolset.id, method: message.method }, 'toolset request failed');
    sendMessage(res, 200, errorMessage(message.id, { code: -32603, message: 'The toolset failed to serve the request.' }));
  }
}

/** The result the toolset made itself, with what 2026-07-28 asks of every result. */
function answer(ctx: ToolsetContext, res: ServerResponse, message: Request, result: Record<string, unknown>): void {
  if (ctx.era === 'legacy') return sendMessage(res, 200, resultMessage(message.id, result));
  const meta = isObject(result._meta) ? result._meta : {};
  const cache = CACHEABLE.has(message.method) ? { ttlMs: 0, cacheScope: 'private' } : {};
  sendMessage(res, 200, resultMessage(message.id, { ...result, resultType: 'complete', ...cache, _meta: { ...meta, [META.serverInfo]: serverInfoOf(ctx.toolset) } }));
}

/** The result of a 2025 `initialize`, and the body of a 2026 `server/discover`. */
export function serverDescription(ctx: Pick<ToolsetContext, 'toolset'>): Record<string, unknown> {
  const instructions = ctx.toolset.description ? { instructions: ctx.toolset.description } : {};
  return { capabilities: TOOLSET_CAPABILITIES, ...instructions };
}

function discovery(ctx: ToolsetContext): Record<string, unknown> {
  const description = serverDescription(ctx);
  const extensions = taskExtension(ctx);
  const capabilities = extensions ? { ...(description.capabilities as Record<string, unknown>), extensions } : description.capabilities;
  return { supportedVersions: [MODERN_VERSION, ...LEGACY_VERSIONS], ...description, capabilities };
}

async function callTool(ctx: ToolsetContext, res: ServerResponse, message: Request): Promise<void> {
  const params = paramsOf(message);
  const named = typeof params.name === 'string' ? memberNamed(ctx.toolset, params.name) : null;
  // A tool the caller may not use is as unknown as one that does not exist.
  if (!named || !grants(ctx.grant, named.member, named.own) || !memberOffers(named.member, named.own)) {
    return sendMessage(res, 200, errorMessage(message.id, unknownName(message)));
  }
  const forwarded = { ...message, params: { ...params, name: named.own } };
  if (await callHeld(ctx, res, named.member, forwarded, String(params.name))) return;
  if (await callAsMemberTask(ctx, res, named.member, forwarded)) return;
  await relayToMember(ctx, res, named.member, forwarded);
}

async function getPrompt(ctx: ToolsetContext, res: ServerResponse, message: Request): Promise<void> {
  const params = paramsOf(message);
  const named = typeof params.name === 'string' ? memberNamed(ctx.toolset, params.name) : null;
  if (!named || !grants(ctx.grant, named.member, named.own)) return sendMessage(res, 200, errorMessage(message.id, unknownName(message)));
  await relayToMember(ctx, res, named.member, { ...message, params: { ...params, name: named.own } });
}

async function readResource(ctx: ToolsetContext, res: ServerResponse, message: Request): Promise<void> {
  const params = paramsOf(message);
  const uri = typeof params.uri === 'string' ? params.uri : '';
  const mapped = memberUri(uri);
  const member = mapped && ctx.toolset.members.find((m) => m.prefix === mapped.prefix);
  // A grant names resources by their prefixed names: a URI is readable when a listed resource the caller may see has it.
  if (!mapped || !member || (!ctx.grant.all && !(await resourcesOf(ctx)).some((r) => r.uri === uri))) {
    return sendMessage(res, 200, errorMessage(message.id, { code: -32602, message: `Unknown resource: ${uri}`, data: { uri } }));
  }
  await relayToMember(ctx, res, member, { ...message, params: { ...params, uri: mapped.uri } }, (result) => {
    const contents = Array.isArray(result.contents) ? result.contents : [];
    return { ...result, contents: contents.map((c) => (isObject(c) && typeof c.uri === 'string' ? { ...c, uri: toolsetUri(member.prefix, c.uri) } : c)) };
  });
}
