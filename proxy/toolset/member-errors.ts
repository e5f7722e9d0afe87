// What a toolset's caller is told when a member cannot answer (decisions.md, "Toolsets"):
// - not connected: JSON-RPC -32010 with the member's state; for the member's owner and admins also
//   why it was disconnected and, when it waits for authorization, the URL to authorize it — or
//   -32042 (URL elicitation required) with that URL to a client that declared URL-mode elicitation.
//   Anyone else (a grantee of the toolset) learns the state and that the owner must reconnect it:
//   never a URL, never -32042, never the reason's text (which may name the owner's account).
// - asked for more scope: -31007, with the step-up URL for the owner and admins only;
// - unreachable, too slow, or anything else the service refused: its problem as a JSON-RPC error.
import { createHash } from 'node:crypto';
import type { Caller } from '../../callers/caller';
import type { Logger } from '../../platform/logger';
import { ProblemError } from '../../contract/problem';
import type { ToolsetMember } from '../../contract/toolset-record';
import { RPC_ERROR, refusalProblem, rpcCodeOf, stepUpProblem } from '../problem-response';
import type { Route } from '../route';
import { UpstreamRefused, UpstreamScope } from '../upstream-client';
import { URL_ELICITATION_REQUIRED } from '../url-elicitation';
import { mayAuthorize } from './access';
import { AnswerTooLarge } from './member-answer';
import type { RpcError } from './rpc';
import type { ToolsetSource } from './toolset-source';

export const MEMBER_NOT_CONNECTED = RPC_ERROR.notConnected;

/** Who asks, as far as the answer depends on it. */
export interface Asker {
  caller: Caller;
  /** The client declared URL-mode elicitation. */
  urlElicitation: boolean;
}

export async function memberUnavailableError(member: ToolsetMember, route: Exclude<Route, { kind: 'connected' }>, source: ToolsetSource, asker: Asker): Promise<RpcError> {
  const state = route.kind === 'not_found' ? 'deleted' : route.state;
  const what = `The toolset member ${member.prefix} (connector ${member.connector_id}) is ${state}`;
  if (!mayAuthorize(asker.caller, route)) {
    return { code: MEMBER_NOT_CONNECTED, message: `${what}; its owner must reconnect it.`, data: { connector_id: member.connector_id, state } };
  }
  const status = await source.memberStatus(member.connector_id).catch(() => null);
  const url = state === 'auth_required' ? (route.kind === 'not_connected' ? route.authorizationUrl : null) ?? status?.authorization_url ?? null : null;
  if (url && asker.urlElicitation) return urlElicitation(url, `${what}: authorize it to call its tools.`);
  const data = { connector_id: member.connector_id, state, disconnect_reason: status?.disconnect_reason ?? null, ...(url ? { authorization_url: url } : {}) };
  return { code: MEMBER_NOT_CONNECTED, message: url ? `${what}; authorize it at ${url}.` : `${what}, not connected.`, data };
}

/**
 * The error for a request to a member (its route as it was sent with) that failed; `logger` hears
 * of what the service did not expect.
 */
export async function memberErrorOf(err: unknown, member: ToolsetMember, route: Route, source: ToolsetSource, asker: Asker, logger: Logger): Promise<RpcError> {
  if (err instanceof UpstreamRefused) {
    if (err.route && err.route.kind !== 'connected') return memberUnavailableError(member, err.route, source, asker);
    return problemError(refusalProblem(err.route, err.status).problem);
  }
  if (err instanceof UpstreamScope) return scopeError(err, member, mayAuthorize(asker.caller, route), asker);
  if (err instanceof ProblemError) return problemError(err);
  if (err instanceof AnswerTooLarge) return problemError(new ProblemError(502, `The toolset member ${member.prefix} sent a message over the size the toolset relays.`));
  logger.error({ err, connectorId: member.connector_id }, 'toolset member request failed');
  return problemError(new ProblemError(500, 'The toolset failed to reach the member.'));
}

export function problemError(problem: ProblemError): RpcError {
  return { code: rpcCodeOf(problem), message: problem.detail, data: problem.toBody() };
}

function scopeError(err: UpstreamScope, member: ToolsetMember, ownerOrAdmin: boolean, asker: Asker): RpcError {
  const url = err.answer?.authorizationUrl ?? null;
  if (!ownerOrAdmin) {
    return { code: RPC_ERROR.scopeRequired, message: `The toolset member ${member.prefix} needs more scope for this call; its owner must grant it.`, data: { connector_id: member.connector_id, scope: err.scope } };
  }
  if (url && asker.urlElicitation) return urlElicitation(url, `The toolset member ${member.prefix} needs more scope (${err.scope}): grant it, then try again.`);
  return problemError(stepUpProblem(err.scope, url, err.answer?.reason ?? null));
}

function urlElicitation(url: string, message: string): RpcError {
  const elicitationId = createHash('sha256').update(url).digest('base64url').slice(0, 22);
  return { code: URL_ELICITATION_REQUIRED, message, data: { elicitations: [{ mode: 'url', elicitationId, url, message }] } };
}
