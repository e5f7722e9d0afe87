// The OAuth steps as Temporal activities, one per step: each opens the secrets it needs, runs one
// step of activities/oauth, and seals what it returns, so that only ciphertext reaches history.
import { FAILURE } from '../contract/failures';
import { ApplicationFailure, Context, heartbeat } from '@temporalio/activity';
import type { Ciphertext } from '../platform/secret-box';
import { withTypedFailures } from './typed-failure';
import type { OAuthContext, PendingAuthorization, SealedTokens } from './oauth/oauth-state';
import { OAuthSecrets } from './oauth-secrets';
import { createOAuthBeginSteps } from './oauth-begin-steps';
import type { OAuthActivityDeps } from './oauth-activity-deps';
import { exchangeCode, refreshTokens, revokeTokens, type OAuthHttp } from './oauth';

export function createOAuthActivities(deps: OAuthActivityDeps) {
  const secrets = new OAuthSecrets(deps.secrets, deps.presets);

  return {
    ...createOAuthBeginSteps(deps, secrets),

    /** Checks the callback (iss, state, error) and exchanges the code. */
    async oauthComplete(input: { connectorId: string; pending: PendingAuthorization; callback: Ciphertext }): Promise<SealedTokens> {
      return withTypedFailures(async () => {
        const id = input.connectorId;
        const { context } = input.pending;
        const tokens = await exchangeCode({
          authorizationServer: context.authorizationServer, client: secrets.plainClient(id, context.client),
          callback: secrets.open(id, 'oauth_callback', input.callback), expectedState: secrets.open(id, 'oauth_state', input.pending.state),
          codeVerifier: secrets.open(id, 'code_verifier', input.pending.codeVerifier), redirectUri: context.redirectUri, resource: context.resource,
        }, deps.http);
        return secrets.sealTokens(id, tokens);
      });
    },

    /** `scheduledAt` (epoch ms): when the refresh loop meant it to run; absent for a refresh on a 401. */
    async oauthRefresh(input: { connectorId: string; context: OAuthContext; refreshToken: Ciphertext; scheduledAt?: number }): Promise<SealedTokens> {
      // The first attempt's delay is the schedule's lag; a retry's would add the retry policy's backoff.
      if (input.scheduledAt !== undefined && Context.current().info.attempt === 1) {
        deps.metrics?.tokenRefreshLag.observe(Math.max(0, Date.now() - input.scheduledAt) / 1000);
      }
      return countedRefresh(deps.metrics, () => withTypedFailures(async () => {
        heartbeat();
        const id = input.connectorId;
        const previous = secrets.open(id, 'refresh_token', input.refreshToken);
        const tokens = await refreshTokens({
          authorizationServer: input.context.authorizationServer, client: secrets.plainClient(id, input.context.client),
          refreshToken: previous, resource: input.context.resource,
        }, deps.http);
        // A server that does not rotate keeps the previous refresh token valid.
        return secrets.sealTokens(id, { ...tokens, refreshToken: tokens.refreshToken ?? previous });
      }));
    },

    async oauthRevoke(input: { connectorId: string; context: OAuthContext; accessToken: Ciphertext | null; refreshToken: Ciphertext | null }): Promise<void> {
      const id = input.connectorId;
      await withTypedFailures(() => revokeTokens({
        authorizationServer: input.context.authorizationServer, client: secrets.plainClient(id, input.context.client),
        accessToken: input.accessToken ? secrets.open(id, 'access_token', input.accessToken) : null,
        refreshToken: input.refreshToken ? secrets.open(id, 'refresh_token', input.refreshToken) : null,
      }, deps.http));
    },
  };
}

/** Counts a refresh by its outcome: `success`, `invalid_grant` (connect again), `transient` (retried) or `failed`. */
async function countedRefresh<T>(metrics: OAuthActivityDeps['metrics'], refresh: () => Promise<T>): Promise<T> {
  try {
    const result = await refresh();
    metrics?.tokenRefreshes.inc({ outcome: 'success' });
    return result;
  } catch (err) {
    const type = err instanceof ApplicationFailure ? err.type : null;
    const outcome = type === FAILURE.invalidGrant ? 'invalid_grant' : type === FAILURE.transient ? 'transient' : 'failed';
    metrics?.tokenRefreshes.inc({ outcome });
    throw err;
  }
}
