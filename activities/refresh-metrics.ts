// How a token renewal is measured, whatever renews it (a refresh token, the client's own
// credentials, an identity assertion): its lag behind the schedule and its outcome, once per
// renewal. A try in a workflow task that overran its budget finishes on its own, but the activity
// the workflow runs next is the one that counts (activities/in-task-admission.ts).
import { ApplicationFailure, Context } from '@temporalio/activity';
import { FAILURE } from '../contract/failures';
import { callLeftItsTask } from './in-task-admission';
import type { OAuthActivityDeps } from './oauth-activity-deps';

type Metrics = OAuthActivityDeps['metrics'];

/**
 * How late this activity started behind `scheduledAt` (epoch ms), in seconds; null for a renewal
 * on a 401 (no schedule) or a retry, whose delay the retry policy's backoff adds to.
 */
export function scheduleLag(scheduledAt: number | undefined): number | null {
  return scheduledAt !== undefined && Context.current().info.attempt === 1 ? Math.max(0, Date.now() - scheduledAt) / 1000 : null;
}

/**
 * Runs a renewal and counts it by its outcome: `success`, `invalid_grant` (connect again),
 * `transient` (retried) or `failed`, with its `lag` (scheduleLag).
 */
export async function measuredRenewal<T>(metrics: Metrics, lag: number | null, renew: () => Promise<T>): Promise<T> {
  const counted = (outcome: string) => {
    if (callLeftItsTask()) return;
    metrics?.tokenRefreshes.inc({ outcome });
    if (lag !== null) metrics?.tokenRefreshLag.observe(lag);
  };
  try {
    const result = await renew();
    counted('success');
    return result;
  } catch (err) {
    const type = err instanceof ApplicationFailure ? err.type : null;
    counted(type === FAILURE.invalidGrant ? 'invalid_grant' : type === FAILURE.transient ? 'transient' : 'failed');
    throw err;
  }
}
