// How a token renewal is measured, whatever renews it (a refresh token, the client's own
// credentials, an identity assertion): its lag behind the schedule and its outcome.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { FAILURE } from '../contract/failures';
import type { OAuthActivityDeps } from './oauth-activity-deps';

/** The first attempt's delay is the schedule's lag; a retry's would add the retry policy's backoff. */
export function observeLag(metrics: OAuthActivityDeps['metrics'], scheduledAt: number | undefined): void {
  if (scheduledAt !== undefined && Context.current().info.attempt === 1) {
    metrics?.tokenRefreshLag.observe(Math.max(0, Date.now() - scheduledAt) / 1000);
  }
}

/** Counts a refresh by its outcome: `success`, `invalid_grant` (connect again), `transient` (retried) or `failed`. */
export async function countedRefresh<T>(metrics: OAuthActivityDeps['metrics'], refresh: () => Promise<T>): Promise<T> {
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
