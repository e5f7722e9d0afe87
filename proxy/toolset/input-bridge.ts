// A 2026-07-28 member's `input_required` result (SEP-2322) for a 2025 client of the toolset, asked
// the 2025 way: each input request goes to the client as a request on the call's SSE stream, with
// the id `toolset-input:<nonce>:<key>`; the client's response, whichever replica it reaches, is
// kept sealed in the answer store under its session; this replica, which holds the stream,
// collects the answers and the member is called again with them and its requestState.
//
// The nonce is random per round, the id carries a tag binding it and the question's key to the
// session, and the store is keyed by the session (which only its caller can use): nobody else's
// response can answer the question, and only answers to questions asked are ever stored. A client that goes away, or does not
// answer within the wait, ends the call.
import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { secretContext, type SecretBox } from '../../platform/secret-box';
import { EventWriter } from './member-answer';
import { isObject, type RpcError, type RpcMessage } from './rpc';
import type { InputAnswerStore, InputBridgeDeps, ToolsetContext } from './toolset-context';

const PREFIX = 'toolset-input:';
/** The rounds of questions one call may ask before it is cut off. */
export const MAX_INPUT_ROUNDS = 8;

/** The key a 2025 session's answers are kept under: never the session id itself, which is a credential. */
export const answerSessionOf = (owner: string, sessionId: string): string => createHash('sha256').update(JSON.stringify([owner, sessionId])).digest('base64url');

/** What of a 2025 client's capabilities a 2026 member may ask through input_required: the same names at both revisions. */
export function answerableCapabilities(capabilities: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(['elicitation', 'sampling', 'roots'].filter((name) => isObject(capabilities[name])).map((name) => [name, capabilities[name]]));
}

export const isInputRequestId = (id: unknown): id is string => typeof id === 'string' && id.startsWith(PREFIX);

const sealContext = (session: string) => secretContext(session, 'toolset-input');

/** `toolset-input:<nonce>.<tag>:<key>`: the tag binds the nonce and the key to the session. */
export function questionId(deps: InputBridgeDeps, session: string, nonce: string, key: string): string {
  return `${PREFIX}${nonce}.${deps.secrets.tag(`${nonce}:${key}`, sealContext(session))}:${key}`;
}

/** Whether `id` is one questionId made for this session. */
export function askedHere(deps: InputBridgeDeps, session: string, id: string): boolean {
  const rest = id.slice(PREFIX.length);
  const colon = rest.indexOf(':');
  const dot = rest.indexOf('.');
  if (colon < 0 || dot < 0 || dot > colon) return false;
  return questionId(deps, session, rest.slice(0, dot), rest.slice(colon + 1)) === id;
}

/** A client's response to one of the bridge's questions, kept for the replica waiting on it. */
export async function keepAnswer(deps: InputBridgeDeps, session: string, message: RpcMessage): Promise<void> {
  // Only an answer to a question this service asked in this session is kept: nothing else can fill the store.
  if (!isInputRequestId(message.id) || !askedHere(deps, session, message.id)) return;
  const answer = message.error !== undefined ? { error: message.error } : { result: message.result };
  await deps.answers.put(session, message.id, deps.secrets.seal(JSON.stringify(answer), sealContext(session)));
}

export class InputFailure extends Error {
  constructor(readonly error: RpcError) {
    super(error.message);
  }
}

/**
 * Asks the client every request of `inputRequests` on the SSE stream of `res` (started here when
 * the member answered JSON) and answers with the inputResponses for the member's next round.
 */
export async function askClient(ctx: ToolsetContext, res: ServerResponse, inputRequests: unknown): Promise<Record<string, unknown>> {
  const bridge = ctx.deps.inputBridge!;
  const session = ctx.answerSession!;
  const requests = isObject(inputRequests) ? Object.entries(inputRequests).filter(([, r]) => isObject(r) && typeof r.method === 'string') : [];
  if (requests.length === 0) throw new InputFailure({ code: -32603, message: 'The MCP server asked for input without a request the client could answer.' });
  if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }).flushHeaders();
  const nonce = randomBytes(12).toString('base64url');
  const idOf = (key: string) => questionId(bridge, session, nonce, key);
  const writer = new EventWriter(res);
  for (const [key, request] of requests) {
    const { method, params } = request as { method: string; params?: unknown };
    if (!(await writer.write({ jsonrpc: '2.0', id: idOf(key), method, ...(isObject(params) ? { params } : {}) }))) throw new InputFailure({ code: -32603, message: 'The client went away.' });
  }
  const answers = await awaitAnswers(bridge, session, requests.map(([key]) => idOf(key)), ctx.signal);
  if (ctx.signal.aborted) throw new InputFailure({ code: -32603, message: 'The client went away.' });
  if (!answers) throw new InputFailure({ code: -32603, message: 'The client did not answer the MCP server\'s request in time.' });
  return Object.fromEntries(requests.map(([key]) => {
    const answer = JSON.parse(bridge.secrets.open(answers.get(idOf(key))!, sealContext(session))) as { result?: unknown; error?: RpcError };
    if (answer.error) throw new InputFailure({ code: -32603, message: `The client could not answer the MCP server's request: ${answer.error.message}` });
    return [key, answer.result];
  }));
}

/**
 * Every one of `ids` from the store, sealed, as they arrive (another replica may put them there);
 * null when the wait (`waitMs`, 10 minutes) ends or `signal` aborts first. The continuations wait here too.
 */
export async function awaitAnswers(bridge: InputBridgeDeps, session: string, ids: readonly string[], signal?: AbortSignal): Promise<Map<string, string> | null> {
  const found = new Map<string, string>();
  const deadline = Date.now() + (bridge.waitMs ?? 600_000);
  while (found.size < ids.length) {
    if (signal?.aborted || Date.now() > deadline) return null;
    for (const [id, sealed] of await bridge.answers.take(session, ids.filter((id) => !found.has(id)))) found.set(id, sealed);
    if (found.size < ids.length) await new Promise((resolve) => setTimeout(resolve, bridge.pollMs ?? 250));
  }
  return found;
}

/** Answers in this process only: a toolset endpoint without a database (tests, a single replica). */
export function memoryAnswerStore(): InputAnswerStore {
  const kept = new Map<string, string>();
  return {
    async put(session, requestId, sealed) {
      kept.set(`${session}\n${requestId}`, sealed);
    },
    async take(session, requestIds) {
      const found = new Map<string, string>();
      for (const id of requestIds) {
        const sealed = kept.get(`${session}\n${id}`);
        if (sealed !== undefined) found.set(id, sealed);
        kept.delete(`${session}\n${id}`);
      }
      return found;
    },
  };
}
