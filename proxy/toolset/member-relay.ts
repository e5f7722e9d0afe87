// A request the toolset passes to one member (tools/call, prompts/get, resources/read): the
// caller's message with the member's own name, and the member's answer streamed back as it comes
// — an SSE answer as SSE, event by event (progress, logging and every other message the member
// sends while it works), a JSON answer as JSON — with what must not cross rewritten on the way:
// - the answer to another id than the caller's is dropped;
// - the result names the toolset as its server (`_meta` serverInfo), and URIs are the toolset's;
// - a 2025 member's request to the client (elicitation, sampling, roots) gets an id naming the
//   member (member-ids.ts); a 2026 client cannot be asked that way, so the member is told so;
// - a 2026 `input_required` result and the client's retry (inputResponses, requestState) pass as
//   they are: only the member reads them.
import type { ServerResponse } from 'node:http';
import type { ToolsetMember } from '../../contract/toolset-record';
import type { ConnectedRoute } from '../route';
import type { UpstreamReply } from '../upstream-client';
import { mayUse } from './access';
import { EventWriter, isEventStream, isJson, messagesOf } from './member-answer';
import { memberErrorOf, memberUnavailableError, type Asker } from './member-errors';
import { clientRequestId } from './member-ids';
import { toolsetUri } from './resource-uris';
import { META, errorMessage, isNotification, isObject, isRequest, isResponse, paramsOf, type RpcError, type RpcId, type RpcMessage } from './rpc';
import { declaresUrlElicitation, serverInfoOf, type ToolsetContext } from './toolset-context';
import { InputFailure, MAX_INPUT_ROUNDS, askClient } from './input-bridge';
import { park, parkable, resume, type ParkedCall } from './member-continuations';
import { toolsetTaskId } from './task-ids';
import { sendMessage } from './toolset-answers';

/** How a member's result is made the toolset's (URIs of resources/read). */
export type ResultRewrite = (result: Record<string, unknown>) => Record<string, unknown>;

/** Forwards `forwarded` (the caller's request, rewritten for the member) and answers the caller with the member's answer. */
export async function relayToMember(ctx: ToolsetContext, res: ServerResponse, member: ToolsetMember, forwarded: RpcMessage & { id: RpcId }, rewrite: ResultRewrite = (r) => r): Promise<void> {
  const asker: Asker = { caller: ctx.caller, urlElicitation: declaresUrlElicitation(ctx) };
  const route = await ctx.deps.routes.get(member.connector_id);
  if (route.kind !== 'connected') return sendMessage(res, 200, errorMessage(forwarded.id, await memberUnavailableError(member, route, ctx.deps.source, asker)));
  if (!mayUse(ctx.toolset, ctx.caller, route)) return sendMessage(res, 200, errorMessage(forwarded.id, unknownName(forwarded)));
  // A 2026 client's retry of a call its 2025 member asked it something during (member-continuations.ts).
  const toCaller = (message: RpcMessage) => sendMessage(res, 200, isObject(message.result) ? { ...message, result: asToolsets(ctx, rewrite(message.result)) } : message);
  if (ctx.era === 'modern' && (await resume(ctx, res, member, forwarded, toCaller))) return;
  // A 2025 client answers a member's input_required on its stream (input-bridge.ts), round after round.
  const bridged = ctx.era === 'legacy' && ctx.deps.inputBridge !== undefined && ctx.answerSession !== undefined;
  for (let round = 0; ; round++) {
    let reply: UpstreamReply;
    try {
      reply = await ctx.deps.link.send({ connectorId: member.connector_id, route }, forwarded, ctx.sessions, { headers: ctx.paramHeaders, signal: ctx.signal });
    } catch (err) {
      if (ctx.signal.aborted) return;
      return answerError(res, forwarded.id, await memberErrorOf(err, member, route, ctx.deps.source, asker, ctx.deps.logger));
    }
    const toClient = fromMember(ctx, member, reply.route, forwarded.id, rewrite);
    let asked: Record<string, unknown> | ParkedCall | null;
    try {
      asked = await pipeAnswer(res, reply, forwarded.id, toClient, bridged && round < MAX_INPUT_ROUNDS, parkable(ctx));
    } catch (err) {
      if (ctx.signal.aborted || (res.headersSent && !bridged)) return void res.destroy();
      return answerError(res, forwarded.id, await memberErrorOf(err, member, route, ctx.deps.source, asker, ctx.deps.logger));
    }
    if (!asked) return;
    if ('parked' in asked) return answerOnce(res, 200, { jsonrpc: '2.0', id: forwarded.id, result: asToolsets(ctx, park(ctx, member, reply.route, asked as ParkedCall, forwarded.id, answerMember)) });
    try {
      const inputResponses = await askClient(ctx, res, asked.inputRequests);
      const params = paramsOf(forwarded);
      forwarded = { ...forwarded, params: { ...params, inputResponses, ...(asked.requestState === undefined ? {} : { requestState: asked.requestState }) } };
    } catch (err) {
      if (err instanceof InputFailure) return answerError(res, forwarded.id, err.error);
      throw err;
    }
  }
}

/** An error for the caller: as JSON, or as the last event of the stream a bridged call already opened. */
function answerError(res: ServerResponse, id: RpcId, error: RpcError): void {
  if (!res.headersSent) return sendMessage(res, 200, errorMessage(id, error));
  void new EventWriter(res).write(errorMessage(id, error)).then(() => res.end());
}

/** Whether a member's request is to be put to the client as input_required (member-continuations.ts). */
type ParkWhen = (message: RpcMessage) => boolean;

export function unknownName(message: RpcMessage): RpcError {
  const params = isObject(message.params) ? message.params : {};
  return { code: -32602, message: `Unknown ${message.method === 'tools/call' ? 'tool' : 'name'}: ${String(params.name ?? params.uri ?? '')}` };
}

/**
 * The member's answer to the caller: SSE event by event, or one JSON message; ends once the
 * response to `id` went. With `holdInput`, an input_required result is not sent: it is returned
 * (the response stays open) for the client to be asked.
 */
async function pipeAnswer(res: ServerResponse, { answer }: UpstreamReply, id: RpcId, toClient: (m: RpcMessage) => RpcMessage | null, holdInput = false, parkWhen?: ParkWhen): Promise<Record<string, unknown> | ParkedCall | null> {
  const held = (out: RpcMessage) => (holdInput && isObject(out.result) && out.result.resultType === 'input_required' ? out.result : null);
  if (isEventStream(answer)) {
    if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }).flushHeaders();
    const writer = new EventWriter(res);
    let answered = false;
    // Iterated by hand: a parked call's stream is read on by its continuation, not closed here.
    const rest = messagesOf(answer);
    for (let next = await rest.next(); !next.done; next = await rest.next()) {
      const message = next.value;
      if (parkWhen?.(message)) return { parked: message as ParkedCall['parked'], rest, answer };
      const out = toClient(message);
      const asked = out && isResponse(out) ? held(out) : null;
      if (asked || (out && !(await writer.write(out)))) {
        answer.destroy();
        return asked;
      }
      if (out && isResponse(out)) {
        answered = true;
        break;
      }
    }
    if (answered) await rest.return(undefined);
    if (!answered) await writer.write(errorMessage(id, brokeOff(answer.statusCode)));
    res.end();
    return null;
  }
  if (isJson(answer)) {
    for await (const message of messagesOf(answer)) {
      const out = toClient(message);
      if (!out || !isResponse(out)) continue;
      const asked = held(out);
      if (!asked) answerOnce(res, answer.statusCode === 200 || !out.error ? 200 : answer.statusCode ?? 200, out);
      return asked;
    }
  } else {
    answer.resume();
  }
  answerOnce(res, 200, errorMessage(id, brokeOff(answer.statusCode)));
  return null;
}

/** A JSON answer, or the last event of a stream a bridged call already opened. */
function answerOnce(res: ServerResponse, status: number, message: RpcMessage): void {
  if (!res.headersSent) return sendMessage(res, status, message);
  void new EventWriter(res).write(message).then(() => res.end());
}

function brokeOff(status: number | undefined): RpcError {
  return { code: -31004, message: `The MCP server gave no answer to the request (HTTP ${status}).` };
}

/** What a message of the member becomes for the caller (null: it does not cross). */
export function fromMember(ctx: ToolsetContext, member: ToolsetMember, route: ConnectedRoute, id: RpcId | null, rewrite: ResultRewrite): (m: RpcMessage) => RpcMessage | null {
  return (message) => {
    if (isResponse(message)) {
      if (id === null || message.id !== id) return null;
      return message.result ? { ...message, result: asToolsets(ctx, rewrite(message.result)) } : message;
    }
    if (isRequest(message)) {
      if (ctx.era === 'legacy') return { ...message, id: clientRequestId(member.prefix, message.id) };
      // A 2026 client is never sent a request: the member hears that the client cannot answer.
      void answerMember(ctx, member, route, errorMessage(message.id, { code: -32601, message: 'The client cannot be asked on this connection (MCP 2026-07-28: input_required).' }));
      return null;
    }
    if (!isNotification(message)) return null;
    return notificationFromMember(ctx, member, message);
  };
}

function notificationFromMember(ctx: ToolsetContext, member: ToolsetMember, message: RpcMessage): RpcMessage | null {
  const params = isObject(message.params) ? message.params : {};
  switch (message.method) {
    case 'notifications/tools/list_changed':
      ctx.deps.catalog.invalidate(member.connector_id);
      // A 2026 client hears list changes on its subscriptions/listen stream, not on a request's.
      return ctx.era === 'legacy' ? message : null;
    case 'notifications/prompts/list_changed':
    case 'notifications/resources/list_changed':
      return ctx.era === 'legacy' ? message : null;
    case 'notifications/resources/updated':
      return typeof params.uri === 'string' ? { ...message, params: { ...params, uri: toolsetUri(member.prefix, params.uri) } } : null;
    case 'notifications/cancelled': {
      const requestId = params.requestId;
      if (typeof requestId !== 'string' && typeof requestId !== 'number') return null;
      return { ...message, params: { ...params, requestId: clientRequestId(member.prefix, requestId) } };
    }
    case 'notifications/tasks':
      // A member's task status names the task by the id the caller holds (toolset-tasks.ts); without the service's tasks there is none.
      if (!ctx.deps.tasks || typeof params.taskId !== 'string') return null;
      return { ...message, params: { ...params, taskId: toolsetTaskId(ctx, member, params.taskId) } };
    default:
      return message;
  }
}

/** A result as the toolset gives it: the toolset is the server that answered, in the client's revision. */
function asToolsets(ctx: ToolsetContext, result: Record<string, unknown>): Record<string, unknown> {
  const meta = isObject(result._meta) ? result._meta : undefined;
  if (ctx.era === 'legacy' && !meta?.[META.serverInfo]) return result;
  // A 2025 member's result to a 2026 client: absent resultType means complete.
  const resultType = ctx.era === 'modern' && result.resultType === undefined ? { resultType: 'complete' } : {};
  return { ...result, ...resultType, _meta: { ...meta, [META.serverInfo]: serverInfoOf(ctx.toolset) } };
}

/** Sends a message of the client's (a response, a notification) to the member; its answer is not awaited past its head. */
export async function answerMember(ctx: ToolsetContext, member: ToolsetMember, route: ConnectedRoute, message: RpcMessage): Promise<void> {
  try {
    const reply = await ctx.deps.link.send({ connectorId: member.connector_id, route }, message, ctx.sessions, { signal: ctx.signal });
    reply.answer.resume();
  } catch (err) {
    ctx.deps.logger.debug({ connectorId: member.connector_id, err: (err as Error)?.message }, 'a message for a toolset member was not delivered');
  }
}
