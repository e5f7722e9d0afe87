// Which session answers a request from the server (sampling, elicitation, roots). Stdio carries
// no link between a server request and the client request it serves, so the gateway guesses the
// way a single client would see it: the session whose request went out last and is still
// unanswered is the one the server is working for.
import type { ClientCapabilities, JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { GatewaySession } from './session';

export interface SessionChoice {
  session: GatewaySession;
  /** Send on this request's response stream; undefined: on the session's GET stream. */
  relatedRequestId?: RequestId;
}

const ElicitParamsSchema = z.looseObject({ mode: z.string().optional() });

export function canAnswer(capabilities: ClientCapabilities, request: JSONRPCRequest): boolean {
  switch (request.method) {
    case 'sampling/createMessage':
      return capabilities.sampling !== undefined;
    case 'elicitation/create': {
      if (capabilities.elicitation === undefined) return false;
      const mode = ElicitParamsSchema.safeParse(request.params ?? {}).data?.mode;
      return mode !== 'url' || capabilities.elicitation.url !== undefined;
    }
    case 'roots/list':
      return capabilities.roots !== undefined;
    default:
      // Methods the gateway does not know: let the client say whether it can.
      return true;
  }
}

export function chooseSession(sessions: Iterable<GatewaySession>, request: JSONRPCRequest): SessionChoice | undefined {
  const able = [...sessions].filter((s) => !s.closed && canAnswer(s.clientCapabilities, request));
  let best: SessionChoice | undefined;
  let bestSequence = -Infinity;
  for (const session of able) {
    const latest = session.latestInflight();
    if (latest && latest.upstreamId > bestSequence) {
      best = { session, relatedRequestId: latest.clientId };
      bestSequence = latest.upstreamId;
    }
  }
  if (best) return best;
  // Nobody is mid-request: any session with a GET stream open can still be asked.
  const listening = able.find((s) => s.listening);
  return listening ? { session: listening } : undefined;
}
