// What the workflow does when the MCP server refuses the connector's credentials during use
// (decisions.md, "MCP protocol revisions"): a 401 that no refresh cured issues a fresh
// authorization URL and moves the connector to `auth_required`; a 403 insufficient_scope offers a
// step-up authorization URL for the accumulated scopes (SEP-2350) while the connector stays
// connected, so that what the token may still do keeps working. Each is one activity (the
// authorization's first steps) and one transition, whose audit event says why.
import { isCancellation } from '@temporalio/workflow';
import { isAllowed, type ConnectorEvent } from '../contract/connector-states';
import type { ApplyOptions, ConnectorEntity } from './connector-entity';
import { failureMessage } from './connect-job';
import { accumulatedScopes, beginAuthorization } from './oauth-begin';
import { renewsWithCredentials } from './client-credentials';
import { askForAssertion, renewsFromAssertion } from './assertion-request';
import type { StepUpRequest, StepUpView, UpstreamRefusal } from './messages';

export interface ReauthorizationContext {
  entity: ConnectorEntity;
  commit: (event: ConnectorEvent, options: ApplyOptions) => Promise<void>;
}

const MATERIAL: Record<string, string> = {
  workload_identity: "the service's workload identity token obtains",
};

/** A refusal no refresh mends: auth_required with a new URL, or disconnected with the reason when none can be had. */
export async function reauthorize({ entity, commit }: ReauthorizationContext, refusal: UpstreamRefusal): Promise<void> {
  entity.data.oauth.challenge = refusal.challenge ?? { resourceMetadata: null, scope: null };
  const why = refusalReason(entity, refusal);
  const session = entity.data.oauth.session;
  if (renewsFromAssertion(session)) {
    // Nobody can open a URL for this grant either, but a fresh identity assertion may mend it.
    await askForAssertion({ entity, commit }, `${why}; the user's identity assertion obtains no token the server accepts`);
    return;
  }
  if (session && renewsWithCredentials(session)) {
    // No user takes part in this grant: an authorization URL would have nobody to open it. The
    // caller connects again (with new credentials).
    const material = MATERIAL[session.context.grant!] ?? 'the client credentials obtain';
    await commit('connection_lost', { actor: 'service', reason: `${why}; ${material} no token the server accepts; connect again`, permanent: true });
    return;
  }
  let failure = 'the MCP server named no authorization to ask for';
  try {
    // The challenge is known, so the first steps never take the server for an open one.
    const begin = await beginAuthorization(entity, null);
    if (begin.kind === 'authorize') {
      entity.data.secrets.accessToken = null; // refused for good
      entity.data.oauth.pending = begin.pending;
      entity.data.authRequest = { type: 'code', authorization_endpoint: begin.authorizationUrl, expires_at: begin.expiresAt };
      await commit('auth_issued', { actor: 'service', reason: `${why}; authorization URL issued, waiting for the user` });
      return;
    }
  } catch (err) {
    if (isCancellation(err)) throw err;
    failure = failureMessage(err);
  }
  await commit('connection_lost', { actor: 'service', reason: `${why}; no new authorization could be started (${failure}); connect again`, permanent: true });
}

/**
 * A 403 insufficient_scope: the step-up authorization URL on offer for every scope asked for so
 * far, reused while one covering them is still open, else a new one (the connector stays connected).
 */
export async function offerStepUp({ entity, commit }: ReauthorizationContext, request: StepUpRequest): Promise<Omit<StepUpView, 'route'>> {
  const asked = rememberStepUpScopes(entity, request.scope);
  const wanted = new Set([...accumulatedScopes(entity), ...asked]);
  const offered = offeredStepUp(entity, wanted);
  if (offered) return { authorizationUrl: offered, reason: null };
  try {
    const challenge = { resourceMetadata: request.challenge?.resourceMetadata ?? null, scope: asked.join(' ') };
    const begin = await beginAuthorization(entity, null, challenge);
    if (begin.kind !== 'authorize') return { authorizationUrl: null, reason: 'the MCP server answered without authorization' };
    if (!isAllowed(entity.state, 'step_up_issued')) return { authorizationUrl: null, reason: `the connector is ${entity.state}` };
    entity.data.oauth.pending = begin.pending;
    entity.data.authRequest = { type: 'code', authorization_endpoint: begin.authorizationUrl, expires_at: begin.expiresAt };
    const reason = `the MCP server asked for more scope (${asked.join(' ')}); step-up authorization URL issued for ${begin.pending.context.scope ?? 'its scopes'}`;
    await commit('step_up_issued', { actor: 'service', reason });
    return { authorizationUrl: begin.authorizationUrl, reason: null };
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { authorizationUrl: null, reason: failureMessage(err) };
  }
}

/**
 * Adds what a step-up asks for to the scopes the next authorization requests; answers the scopes
 * asked for. A server that keeps asking for what it was already given cannot grow the list: no loop.
 */
export function rememberStepUpScopes(entity: ConnectorEntity, scope: string): string[] {
  const oauth = entity.data.oauth;
  const asked = [...new Set(scope.split(' ').filter(Boolean))].slice(0, 20);
  const granted = new Set([...(oauth.session?.context.scope ?? '').split(' '), ...(oauth.grantedScopes ?? [])]);
  const known = new Set(oauth.stepUpScopes);
  const added = asked.filter((s) => !granted.has(s) && !known.has(s));
  if (added.length) oauth.stepUpScopes = [...oauth.stepUpScopes, ...added].slice(0, 50);
  return asked;
}

/** The step-up URL on offer when it is still open and asks for every scope in `wanted`. */
function offeredStepUp(entity: ConnectorEntity, wanted: Set<string>): string | null {
  const { authRequest, oauth, state } = entity.data;
  if (state !== 'connected' || authRequest?.type !== 'code' || !oauth.pending || !authorizationOpen(entity)) return null;
  const asked = new Set((oauth.pending.context.scope ?? '').split(' '));
  return [...wanted].every((s) => asked.has(s)) ? authRequest.authorization_endpoint : null;
}

/** Whether the authorization URL on offer is still before its deadline (workflow time: deterministic). */
export function authorizationOpen(entity: ConnectorEntity): boolean {
  const request = entity.data.authRequest;
  return request?.type === 'code' && Date.parse(request.expires_at) > Date.now();
}

/** Why the server's refusal took the connector's credentials out of use. */
function refusalReason(entity: ConnectorEntity, report: UpstreamRefusal): string {
  const http = `HTTP ${report.status}`;
  if (!report.usedToken) return `the MCP server asks for authorization (${http})`;
  if (entity.data.oauth.session) return `the MCP server refused the access token (${http}) and a refresh did not help`;
  return `the MCP server refused the token (${http})`;
}
