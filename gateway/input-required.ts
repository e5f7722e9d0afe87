// A 2026-07-28 server asks its client for input (elicitation, sampling, roots) by answering a
// request with an `input_required` result and expecting the request again with `inputResponses`
// (and its `requestState` echoed). A 2025 session knows nothing of that: the gateway puts each
// input request to the session as the server-to-client request it was in 2025, and sends the
// original request again with the answers, round after round, as the SDK's own client does.
import { ErrorCode, isJSONRPCResultResponse, type JSONRPCResponse, type Result } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { canAnswer } from './choose-session';
import { connectionClosed, errorAnswer } from './jsonrpc';
import type { RoutingContext } from './routing-context';
import type { ForwardedRequest } from './routing-tables';

/** The SDK client's default bound: a server that never stops asking is cut off. */
const MAX_ROUNDS = 8;

const InputRequiredSchema = z.looseObject({
  resultType: z.literal('input_required'),
  inputRequests: z.record(z.string(), z.looseObject({ method: z.string(), params: z.looseObject({}).optional() })).optional(),
  requestState: z.string().optional(),
});

/** Whether a forwarded request's result asks for input that the gateway must gather. */
export function asksForInput(context: RoutingContext, answer: JSONRPCResponse): boolean {
  return context.upstream.server?.era === 'modern' && isJSONRPCResultResponse(answer)
    && InputRequiredSchema.safeParse(answer.result).success;
}

export async function gatherInput(context: RoutingContext, request: ForwardedRequest, result: Result): Promise<void> {
  const { session, clientId } = request;
  const asked = InputRequiredSchema.parse(result);
  const rounds = (request.rounds ?? 0) + 1;
  if (rounds > MAX_ROUNDS) {
    await session.deliver(errorAnswer(clientId, ErrorCode.InternalError, `the server still asked for input after ${MAX_ROUNDS} rounds`));
    return;
  }
  const responses: Record<string, unknown> = {};
  for (const [key, input] of Object.entries(asked.inputRequests ?? {})) {
    if (!canAnswer(session.clientCapabilities, { jsonrpc: '2.0', id: key, method: input.method, params: input.params })) {
      await session.deliver(errorAnswer(clientId, ErrorCode.InvalidRequest, `the server needs ${input.method}, which this client did not declare`));
      return;
    }
    const answer = await ask(context, request, input.method, input.params);
    if (!isJSONRPCResultResponse(answer)) {
      await session.deliver({ ...answer, id: clientId });
      return;
    }
    responses[key] = answer.result;
  }
  await askAgain(context, request, rounds, responses, asked.requestState);
}

/** One input request, put to the session on the stream of the request it serves. */
function ask(context: RoutingContext, request: ForwardedRequest, method: string, params?: Record<string, unknown>): Promise<JSONRPCResponse> {
  return new Promise((onanswer) => {
    const { tables } = context;
    const relayed = tables.relay({
      session: request.session, upstreamId: `input-for-${request.upstreamId}-${method}`, method, relatedRequestId: request.clientId, onanswer,
    });
    void request.session.deliver({ jsonrpc: '2.0', id: relayed.gatewayId, method, ...(params ? { params } : {}) }, request.clientId)
      .then((delivered) => {
        if (!delivered && tables.takeRelayed(relayed.gatewayId)) onanswer(errorAnswer(relayed.gatewayId, ErrorCode.InternalError, 'the session is gone'));
      });
  });
}

async function askAgain(
  context: RoutingContext, request: ForwardedRequest, rounds: number, inputResponses: Record<string, unknown>, requestState?: string,
): Promise<void> {
  const { upstream, tables } = context;
  const upstreamId = upstream.allocateId();
  const params: Record<string, unknown> = { ...request.params, inputResponses, ...(requestState === undefined ? {} : { requestState }) };
  // Progress keeps flowing to the client: upstream, the token is the request's current id.
  if (request.clientProgressToken !== undefined) params._meta = { ...(params._meta as object), progressToken: upstreamId };
  tables.forward({ ...request, upstreamId, params, rounds });
  try {
    await upstream.send({ jsonrpc: '2.0', id: upstreamId, method: request.method, params });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (tables.takeForwarded(upstreamId)) await request.session.deliver(connectionClosed(request.clientId, reason));
  }
}
