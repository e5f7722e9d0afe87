// A 2025 member's request to the client (elicitation, sampling, roots) during a 2026 client's call
// through a toolset: a 2026 client cannot be sent requests, so the call is answered with an
// `input_required` result (SEP-2322) carrying the request, and the member's stream stays open in
// this replica (the continuation), which holds the caller's member session. The client's retry,
// with inputResponses and the requestState, may reach any replica: it leaves the answers in the
// answer store and waits there for the outcome; the replica holding the continuation takes the
// answers, answers the member on its session, reads on, and leaves the outcome — the member's
// result, or its next request — for the retry to answer with.
//
// The requestState is sealed for the toolset, the caller and the member: nobody else's retry
// resumes the call. A continuation nobody resumes within the wait is cut off.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { ToolsetMember } from '../../contract/toolset-record';
import { secretContext } from '../../platform/secret-box';
import type { ConnectedRoute } from '../route';
import { isRequest, isResponse, paramsOf, type RpcError, type RpcId, type RpcMessage } from './rpc';
import { awaitAnswers } from './input-bridge';
import type { InputBridgeDeps, ToolsetContext } from './toolset-context';

/** A member's request the call stopped at, and the rest of the member's stream. */
export interface ParkedCall {
  parked: RpcMessage & { id: RpcId; method: string };
  rest: AsyncGenerator<RpcMessage>;
  answer: { destroy(): void };
}

const STATE_PREFIX = 'toolset-continuation:';
const INPUT_KEY = 'member_request';

/** What the client is told at each step: the member's response, or its next request. */
type Outcome = { response: RpcMessage } | { asked: RpcMessage & { id: RpcId; method: string } } | { error: RpcError };

interface State {
  continuation: string;
  round: number;
}

/** Whether the member's message is a request a continuation can put to this client. */
export function parkable(ctx: ToolsetContext): ((message: RpcMessage) => boolean) | undefined {
  if (ctx.era !== 'modern' || !ctx.deps.inputBridge) return undefined;
  return (message) => isRequest(message) && declares(ctx.clientCapabilities, message.method);
}

function declares(capabilities: Record<string, unknown>, method: string): boolean {
  const name = method === 'elicitation/create' ? 'elicitation' : method === 'sampling/createMessage' ? 'sampling' : method === 'roots/list' ? 'roots' : null;
  return name !== null && typeof capabilities[name] === 'object' && capabilities[name] !== null;
}

/** Starts the continuation of a parked call; the result to answer the client with now. */
export function park(ctx: ToolsetContext, member: ToolsetMember, route: ConnectedRoute, parked: ParkedCall, callId: RpcId, answerMember: MemberAnswerer): Record<string, unknown> {
  const bridge = ctx.deps.inputBridge!;
  const continuation = randomUUID();
  void carryOn(ctx, bridge, continuation, member, route, parked, callId, answerMember);
  return inputRequired(ctx, member, { continuation, round: 0 }, parked.parked);
}

export type MemberAnswerer = (ctx: ToolsetContext, member: ToolsetMember, route: ConnectedRoute, message: RpcMessage) => Promise<void>;

/** A client's retry of a parked call: its answers handed over, and the next outcome awaited. True when it was one. */
export async function resume(ctx: ToolsetContext, res: ServerResponse, member: ToolsetMember, message: RpcMessage & { id: RpcId }, send: (message: RpcMessage) => void): Promise<boolean> {
  const bridge = ctx.deps.inputBridge;
  const params = paramsOf(message);
  const state = bridge && typeof params.requestState === 'string' ? openState(ctx, member, params.requestState) : null;
  if (!bridge || !state) return false;
  const session = sessionOf(state.continuation);
  await bridge.answers.put(session, `answers:${state.round}`, bridge.secrets.seal(JSON.stringify(params.inputResponses ?? {}), secretContext(session, 'answers')));
  const sealed = await waitFor(bridge, session, `outcome:${state.round}`, ctx.signal);
  if (res.destroyed) return true;
  const outcome: Outcome = sealed ? JSON.parse(bridge.secrets.open(sealed, secretContext(session, 'outcome'))) : { error: { code: -32603, message: 'The MCP server\'s call was lost: its continuation ended before it answered (a restart, or no answer in time).' } };
  if ('error' in outcome) send({ jsonrpc: '2.0', id: message.id, error: outcome.error });
  else if ('asked' in outcome) send({ jsonrpc: '2.0', id: message.id, result: inputRequired(ctx, member, { continuation: state.continuation, round: state.round + 1 }, outcome.asked) });
  else send({ ...outcome.response, id: message.id });
  return true;
}

/** The parked call, read on round after round as the client answers, until the member responds. */
async function carryOn(ctx: ToolsetContext, bridge: InputBridgeDeps, continuation: string, member: ToolsetMember, route: ConnectedRoute, parked: ParkedCall, callId: RpcId, answerMember: MemberAnswerer): Promise<void> {
  const session = sessionOf(continuation);
  const leave = (round: number, outcome: Outcome) => bridge.answers.put(session, `outcome:${round}`, bridge.secrets.seal(JSON.stringify(outcome), secretContext(session, 'outcome')));
  let asked = parked.parked;
  try {
    for (let round = 0; ; round++) {
      const sealed = await waitFor(bridge, session, `answers:${round}`);
      if (!sealed) return; // nobody came back for it
      const responses = JSON.parse(bridge.secrets.open(sealed, secretContext(session, 'answers'))) as Record<string, unknown>;
      const answer = responses[INPUT_KEY];
      await answerMember(ctx, member, route, answer === undefined
        ? { jsonrpc: '2.0', id: asked.id, error: { code: -32603, message: 'The client gave no answer.' } }
        : { jsonrpc: '2.0', id: asked.id, result: answer as Record<string, unknown> });
      const next = await nextOf(parked.rest, callId);
      if (!next) return void (await leave(round, { error: { code: -31004, message: 'The MCP server ended its answer without a response.' } }));
      if (isResponse(next)) return void (await leave(round, { response: next }));
      asked = next as typeof asked;
      await leave(round, { asked });
    }
  } catch (err) {
    ctx.deps.logger.debug({ connectorId: member.connector_id, err: (err as Error)?.message }, 'a parked toolset call ended');
  } finally {
    parked.answer.destroy();
  }
}

/** The member's next message that matters: its response to the call, or its next request. */
async function nextOf(rest: AsyncGenerator<RpcMessage>, callId: RpcId): Promise<RpcMessage | null> {
  for (let next = await rest.next(); !next.done; next = await rest.next()) {
    const message = next.value;
    if (isRequest(message) || (isResponse(message) && message.id === callId)) return message;
  }
  return null;
}

function inputRequired(ctx: ToolsetContext, member: ToolsetMember, state: State, asked: RpcMessage & { method: string }): Record<string, unknown> {
  const request = { method: asked.method, ...(asked.params ? { params: asked.params } : {}) };
  return { resultType: 'input_required', inputRequests: { [INPUT_KEY]: request }, requestState: sealState(ctx, member, state) };
}

const sessionOf = (continuation: string) => `continuation:${continuation}`;
const stateContext = (ctx: ToolsetContext, member: ToolsetMember) => secretContext(ctx.toolset.id, `continuation/${member.prefix}/${ctx.caller.subject}`);

function sealState(ctx: ToolsetContext, member: ToolsetMember, state: State): string {
  return `${STATE_PREFIX}${ctx.deps.inputBridge!.secrets.seal(JSON.stringify(state), stateContext(ctx, member))}`;
}

function openState(ctx: ToolsetContext, member: ToolsetMember, text: string): State | null {
  if (!text.startsWith(STATE_PREFIX)) return null;
  try {
    return JSON.parse(ctx.deps.inputBridge!.secrets.open(text.slice(STATE_PREFIX.length), stateContext(ctx, member))) as State;
  } catch {
    return null;
  }
}

async function waitFor(bridge: InputBridgeDeps, session: string, key: string, signal?: AbortSignal): Promise<string | null> {
  return (await awaitAnswers(bridge, session, [key], signal))?.get(key) ?? null;
}
