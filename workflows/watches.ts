// What the workflow watches over, per state, while no caller is waiting: the authorization
// deadline, the token's refresh time, the stdio workload's life. Each is a loop of durable timers
// and activities that the workflow runs in its own cancellation scope and replaces whenever the
// state changes.
import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';
import { authExpiryEvent, isAllowed, refreshOutcomeEvent, watchNeeded, type ConnectorEvent, type WatchKind } from '../contract/connector-states';
import { FAILURE } from '../contract/failures';
import type { ApplyOptions, ConnectorEntity } from './connector-entity';
import { failureMessage, failureType, workloadInput } from './connect-job';
import { cleanup, inTaskFirst, inTaskRefresher, inTaskTry, refresher as regularRefresher, watcher, workloads } from './activity-proxies';
import { EXPIRY_RACE_ON_LEAVING, IN_TASK_REFRESH, IN_TASK_TRY_ONCE, REFRESH_FLOOR, takes } from './code-changes';
import { renewable, renewsWithCredentials } from './client-credentials';
import { askForAssertion, renewsFromAssertion } from './assertion-request';
import type { OAuthState, SealedTokens } from '../activities/oauth/oauth-state';
import type { ConnectorInit } from './messages';
import { DEFAULT_MIN_REFRESH_INTERVAL_SECONDS, DEFAULT_REFRESH_SKEW_SECONDS, renewalPeriodMs } from '../contract/token-renewal';

type Session = NonNullable<OAuthState['session']>;

export type { WatchKind } from '../contract/connector-states';

export interface WatchContext {
  entity: ConnectorEntity;
  commit: (event: ConnectorEvent, options: ApplyOptions) => Promise<void>;
  stdioReadyTimeoutMs: number;
  /** Runs work that must not be cut by a continue-as-new (a refresh whose answer rotates the grant). */
  uncut: <T>(work: () => Promise<T>) => Promise<T>;
}

/** Which watch the current state needs: asked of the state machine's rules. */
export function watchFor(entity: ConnectorEntity): WatchKind {
  const d = entity.data;
  const session = d.oauth.session;
  return watchNeeded({
    state: d.state, authorizationIssued: d.authRequest?.type === 'code', workload: d.workload !== null,
    refreshable: renewable(session), expires: Boolean(session?.expiresAt), disconnectPermanent: d.disconnectPermanent,
  });
}

export async function runWatch(kind: WatchKind, ctx: WatchContext): Promise<void> {
  if (kind === 'auth-expiry') return authExpiry(ctx);
  if (kind === 'refresh') return refreshLoop(ctx);
  if (kind === 'workload') return workloadLoop(ctx);
}

async function authExpiry({ entity, commit }: WatchContext): Promise<void> {
  for (;;) {
    const request = entity.data.authRequest;
    if (request?.type !== 'code') return; // an assertion request waits for a connect, with no deadline
    await sleep(Math.max(0, Date.parse(request.expires_at) - Date.now()));
    // A step-up offered anew meanwhile has a later deadline: wait for that one instead.
    const now = entity.data.authRequest;
    if (now?.type === 'code' && now !== request && Date.parse(now.expires_at) > Date.now()) continue;
    break;
  }
  // auth_required: the connector is disconnected; connected, a step-up's offer ends and the token stays in force.
  const event = authExpiryEvent(entity.state);
  if (isAllowed(entity.state, event)) await commit(event, { actor: 'service', reason: 'authorization timed out', permanent: true });
}

/**
 * When to refresh: `skewSeconds` (CONNECTOR__REFRESH_SKEW_SECONDS) before expiry, the skew
 * shortened for short-lived tokens to a third of their life, and never sooner than
 * `minIntervalSeconds` after the token was obtained (CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS).
 */
export function refreshDelayMs(
  session: { expiresAt: string | null; obtainedAt: string }, now: number, skewSeconds = DEFAULT_REFRESH_SKEW_SECONDS, minIntervalSeconds = 0,
): number | null {
  if (!session.expiresAt) return null; // refreshed on 401 only
  const expires = Date.parse(session.expiresAt);
  const obtained = Date.parse(session.obtainedAt);
  return Math.max(0, obtained + renewalPeriodMs(expires - obtained, skewSeconds, minIntervalSeconds) - now);
}

/** The floor between renewals (code-changes.ts, REFRESH_FLOOR). */
function minRefreshIntervalSeconds(entity: ConnectorEntity): number {
  if (!takes(entity.data.init, REFRESH_FLOOR)) return 0;
  return entity.data.init.settings.minRefreshIntervalSeconds ?? DEFAULT_MIN_REFRESH_INTERVAL_SECONDS;
}

async function refreshLoop(ctx: WatchContext): Promise<void> {
  const { entity } = ctx;
  for (;;) {
    const session = entity.data.oauth.session;
    if (!session || !renewable(session)) return;
    const { settings } = entity.data.init;
    const delay = entity.state === 'connected' ? refreshDelayMs(session, Date.now(), settings.refreshSkewSeconds, minRefreshIntervalSeconds(entity)) : 0;
    if (delay === null) return;
    const scheduledAt = Date.now() + delay;
    const expiredByFloor = session.expiresAt !== null && Date.parse(session.expiresAt) < scheduledAt && delay > 0;
    await sleep(delay);
    // Cancelled half-way, a refresh's new tokens (and the rotated refresh token) would be lost.
    if (!(await ctx.uncut(() => refreshOnce(ctx, scheduledAt, { expiryLosesConnection: !expiredByFloor })))) return;
  }
}

/**
 * One refresh, racing the token's expiry once it has left its workflow task: past it the connector
 * is disconnected (not permanently) until the refresh succeeds. `scheduledAt`: when the refresh
 * loop meant it to run (the activity measures its lag). `onFailure: 'report'` (a refresh the proxy asked for after a 401): a failure
 * changes no state, since the proxy's refusal report that follows asks the user to authorize
 * anew; a grant found dead is dropped so that nobody tries it again. `expiryLosesConnection: false`:
 * the token expired before its renewal was due (the refresh floor), so its expiry says nothing
 * about the authorization server.
 */
export async function refreshOnce(
  { entity, commit }: WatchContext, scheduledAt?: number,
  { onFailure = 'lose', expiryLosesConnection = true }: { onFailure?: 'lose' | 'report'; expiryLosesConnection?: boolean } = {},
): Promise<boolean> {
  const session = entity.data.oauth.session!;
  const { init } = entity.data;
  const inTask = takes(init, IN_TASK_REFRESH);
  const expiresAt = session.expiresAt ? Date.parse(session.expiresAt) : null;
  const mayLoseConnection = expiresAt !== null && entity.state === 'connected' && expiryLosesConnection;
  const expiredAtReport = onFailure === 'report' && expiresAt !== null && expiresAt <= Date.now();
  const onExpired = async () => {
    if (!isAllowed(entity.state, 'connection_lost')) return;
    await commit('connection_lost', { actor: 'service', reason: 'the access token expired while the authorization server was unreachable; retrying', permanent: false });
  };
  const onLeaving = mayLoseConnection && !expiredAtReport && inTask && takes(init, EXPIRY_RACE_ON_LEAVING);
  const leaving: Leaving | undefined = onLeaving ? (asActivity) => racedAgainstExpiry(expiresAt, asActivity, onExpired) : undefined;
  const refreshing = renewal(init, session, { connectorId: init.id, owner: init.createdBy, scheduledAt }, inTask, leaving);
  // A token the MCP server refused after it expired (its renewal not due yet: the floor) is renewed
  // here, and a failure changes no state: its expiry is no news either. Asked after the renewal
  // started, and raced here, beside it, as histories from before 'expiry-race-on-leaving' did.
  const expiredBeforeReport = expiredAtReport && takes(init, REFRESH_FLOOR);
  if (mayLoseConnection && !expiredBeforeReport && !onLeaving) await raceExpiry(expiresAt, () => refreshing, inTask, onExpired);
  try {
    const tokens = await refreshing;
    entity.data.secrets.accessToken = tokens.accessToken;
    entity.data.oauth.session = { ...session, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt, obtainedAt: new Date().toISOString(), dpop: tokens.dpop };
    const event = refreshOutcomeEvent(entity.state, true);
    if (event) await commit(event, { actor: 'service', reason: 'the authorization server is back; token refreshed' });
    return true;
  } catch (err) {
    if (isCancellation(err)) throw err;
    const dead = failureType(err) === FAILURE.invalidGrant;
    if (onFailure === 'report' && entity.state === 'connected') {
      if (dead && entity.data.oauth.session) entity.data.oauth.session = { ...entity.data.oauth.session, refreshToken: null };
      return false;
    }
    // Connected: the connection is lost. Already disconnected while retrying: the retry ends. A
    // dead identity assertion instead asks for a fresh one.
    const event = refreshOutcomeEvent(entity.state, false, dead && renewsFromAssertion(session));
    if (event === 'assertion_required') {
      await askForAssertion({ entity, commit }, `the token could not be renewed: ${failureMessage(err)}`);
      return false;
    }
    const reason = dead
      ? 'the authorization grant expired or was revoked; connect again'
      : `the token could not be refreshed: ${failureMessage(err)}`;
    if (event) await commit(event, { actor: 'service', reason, permanent: true });
    return false;
  }
}

/**
 * Runs `work` (started after the expiry's timer) against the token's expiry and, should the token
 * expire first, `onExpired` (the connection is lost meanwhile). Over when the first of them is.
 * `cancelUnused`: the timer goes once the renewal is done (left running, it woke the workflow for nothing).
 */
async function raceExpiry(expiresAt: number, work: () => Promise<unknown>, cancelUnused: boolean, onExpired: () => Promise<void>): Promise<void> {
  const race = new CancellationScope();
  const expired = race.run(() => sleep(Math.max(0, expiresAt - Date.now()))).then(() => 'expired' as const, () => 'cancelled' as const);
  const first = await Promise.race([work().then(() => 'done' as const, () => 'done' as const), expired]);
  if (first === 'done' && cancelUnused) race.cancel();
  if (first === 'expired') await onExpired();
}

/** What a renewal runs when its try in the task failed: the same call as a regular activity, or that call raced against the expiry. */
type Leaving = (asActivity: () => Promise<SealedTokens>) => Promise<SealedTokens>;

async function racedAgainstExpiry(expiresAt: number, asActivity: () => Promise<SealedTokens>, onExpired: () => Promise<void>): Promise<SealedTokens> {
  let answer!: Promise<SealedTokens>;
  await raceExpiry(expiresAt, () => (answer = asActivity()), true, onExpired);
  return answer;
}

/** Renews this grant: in the timer's workflow task first, as a regular activity when that try cannot finish there. */
function renewal(
  init: ConnectorInit, session: Session, call: RenewalCall, inTask: boolean, leaving: Leaving = (asActivity) => asActivity(),
): Promise<SealedTokens> {
  if (!inTask) return renew(regularRefresher, session, call);
  if (!takes(init, IN_TASK_TRY_ONCE)) return renew(inTaskRefresher, session, call);
  return inTaskFirst(() => renew(inTaskTry, session, call), () => leaving(() => renew(regularRefresher, session, call)));
}

interface RenewalCall { connectorId: string; owner: string | null; scheduledAt: number | undefined }

/** The activity that renews this grant: by refresh token, by the client's credentials or workload token, or either for an enterprise-managed one. */
function renew(refresher: typeof regularRefresher, session: Session, { connectorId, owner, scheduledAt }: RenewalCall): Promise<SealedTokens> {
  const { context, refreshToken } = session;
  const call = { connectorId, context, scheduledAt, owner };
  if (context.grant === 'enterprise_managed') return refresher.oauthRenewEnterpriseManaged({ ...call, refreshToken });
  if (context.grant === 'workload_identity') return refresher.oauthRenewWorkloadIdentity(call);
  if (renewsWithCredentials(session)) return refresher.oauthRenewClientCredentials(call);
  return refresher.oauthRefresh({ ...call, refreshToken: refreshToken! });
}

async function workloadLoop({ entity, commit, stdioReadyTimeoutMs }: WatchContext): Promise<void> {
  const id = entity.data.init.id;
  for (;;) {
    const seen = await watcher.watchWorkload({ connectorId: id });
    if (!isAllowed(entity.state, 'connection_lost')) return;
    if (seen.kind === 'missing') {
      // The workload is gone without having exited (a local runtime after a restart): bring it back.
      try {
        entity.data.workload = await workloads(stdioReadyTimeoutMs).startWorkload(workloadInput(entity, entity.data.secrets.accessToken));
        continue;
      } catch (err) {
        if (isCancellation(err)) throw err;
        await commit('connection_lost', { actor: 'service', reason: `the stdio workload could not be restarted: ${failureMessage(err)}`, permanent: true });
        return;
      }
    }
    await cleanup.removeWorkload({ connectorId: id });
    await commit('connection_lost', { actor: 'service', reason: seen.reason, permanent: true });
    return;
  }
}
