// The user came back from the authorization server: exchange the code, try the token, and
// become connected — or record why not, so the API can relay the error to the user.
import { isCancellation } from '@temporalio/workflow';
import { callbackFailureEvent } from '../contract/connector-states';
import type { ConnectJob } from './connect-job';
import { failureMessage } from './connect-job';
import { remote } from './activity-proxies';
import { boundKey } from './connector-entity';
import type { CallbackInput, CallbackOutcome } from './messages';

export async function completeAuthorization(job: Omit<ConnectJob, 'request' | 'stdioReadyTimeoutMs'>, input: CallbackInput): Promise<CallbackOutcome> {
  const { entity } = job;
  const init = entity.data.init;
  const pending = entity.data.oauth.pending!;
  const outcome = { connectorId: init.id, redirectUrl: pending.redirectUrl };
  const calls = remote(init.settings.connectTimeoutMs);
  try {
    const tokens = await calls.oauthComplete({ connectorId: init.id, pending, callback: input.callback });
    const probed = await calls.probeServer({
      connectorId: init.id, url: entity.upstreamUrl, token: tokens.accessToken, headers: entity.upstreamHeaders, dpopKey: boundKey(pending.context, tokens), ...entity.upstreamTransport,
    });
    entity.data.secrets.accessToken = tokens.accessToken;
    entity.data.oauth.boundIssuer = pending.context.authorizationServer.issuer;
    entity.data.oauth.grantedScopes = (tokens.scope ?? pending.context.scope ?? '').split(' ').filter(Boolean).slice(0, 50);
    entity.data.oauth.session = {
      context: pending.context, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt, obtainedAt: new Date().toISOString(), dpop: tokens.dpop,
    };
    const reason = tokens.dpop ? "authorization granted; the token is DPoP-bound to the connector's key" : 'authorization granted';
    await job.commit('connect_succeeded', { actor: 'user', reason, protocolVersion: probed.protocolVersion, authKind: 'authorization_code' });
    return { ...outcome, error: null, errorDescription: null };
  } catch (err) {
    if (isCancellation(err)) throw err;
    const message = failureMessage(err);
    // A step-up that fails leaves the connector connected with the token it had.
    await job.commit(callbackFailureEvent(entity.state), { actor: 'service', reason: `authorization failed: ${message}`, permanent: true });
    return { ...outcome, error: oauthErrorCode(err), errorDescription: message };
  }
}

function oauthErrorCode(err: unknown): string {
  const details = ((err as { cause?: { details?: unknown[] } }).cause?.details ?? [])[0] as { oauthError?: string } | undefined;
  return details?.oauthError ?? 'server_error';
}
