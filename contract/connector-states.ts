// The connector lifecycle: the one place that says which state follows which event.
// Pure and free of Node APIs, because the workflow (deterministic sandbox) and the API (409
// answers) both import it.

export const STATES = [
  'created', 'connecting', 'auth_required', 'connected', 'disconnecting', 'disconnected', 'deleting',
] as const;
export type ConnectorState = (typeof STATES)[number];

/** Events a caller asks for (validated before they reach history) and events the service raises. */
export const EVENTS = [
  // caller requests
  'connect', 'disconnect', 'delete',
  // outcomes of work the workflow does
  'connect_succeeded', 'connect_failed', 'auth_issued', 'auth_timed_out',
  'connection_lost', 'disconnect_finished',
  // while connected, the server asked for more scope (SEP-2350): a step-up authorization URL is
  // offered beside the token in force, and ends with a grant, a failure or its deadline
  'step_up_issued', 'step_up_failed', 'step_up_expired',
  // an enterprise-managed grant's identity assertion obtains no token any more (expired, or
  // refused by the identity provider): a caller is asked for a fresh one, never silently dropped
  'assertion_required',
] as const;
export type ConnectorEvent = (typeof EVENTS)[number];

export const CALLER_EVENTS = ['connect', 'disconnect', 'delete'] as const satisfies readonly ConnectorEvent[];
export type CallerEvent = (typeof CALLER_EVENTS)[number];

/** States in which work is under way; a caller's connect waits for them to settle (409). */
export const TRANSIENT_STATES: readonly ConnectorState[] = ['connecting', 'disconnecting', 'deleting'];

type Table = Record<ConnectorState, Partial<Record<ConnectorEvent, ConnectorState>>>;

const TABLE: Table = {
  created: {
    connect: 'connecting',
    delete: 'deleting',
  },
  connecting: {
    disconnect: 'disconnecting', // cancels the connect under way
    delete: 'deleting',
    connect_succeeded: 'connected',
    connect_failed: 'disconnected',
    auth_issued: 'auth_required',
  },
  auth_required: {
    connect: 'connecting', // restarts the flow
    disconnect: 'disconnecting',
    delete: 'deleting',
    auth_timed_out: 'disconnected',
    // the callback arrived: exchanging the code is connecting work
    connect_succeeded: 'connected',
    connect_failed: 'disconnected',
  },
  connected: {
    connect: 'connecting', // replaces the token or re-authorizes
    disconnect: 'disconnecting',
    delete: 'deleting',
    connection_lost: 'disconnected',
    // the server refused the token during use and no refresh cured it: the user authorizes anew
    auth_issued: 'auth_required',
    // a step-up authorization's callback brought a wider grant; what the token could do kept working meanwhile
    connect_succeeded: 'connected',
    step_up_issued: 'connected',
    step_up_failed: 'connected',
    step_up_expired: 'connected',
    assertion_required: 'auth_required',
  },
  disconnecting: {
    delete: 'deleting',
    disconnect_finished: 'disconnected',
  },
  disconnected: {
    connect: 'connecting',
    disconnect: 'disconnected', // accepted, no change
    delete: 'deleting',
    // a transient loss that the service retries on its own may recover
    connect_succeeded: 'connected',
    // a retry after a transient loss found the assertion dead: ask for a fresh one
    assertion_required: 'auth_required',
  },
  deleting: {
    delete: 'deleting', // idempotent while tearing down
  },
};

export type Transition =
  | { ok: true; from: ConnectorState; to: ConnectorState }
  | { ok: false; from: ConnectorState; reason: string };

/** The state that follows `event` in `from`, or why the event is refused there. */
export function transition(from: ConnectorState, event: ConnectorEvent): Transition {
  const to = TABLE[from][event];
  if (to) return { ok: true, from, to };
  return { ok: false, from, reason: refusalReason(from, event) };
}

export function isAllowed(from: ConnectorState, event: ConnectorEvent): boolean {
  return TABLE[from][event] !== undefined;
}

function refusalReason(from: ConnectorState, event: ConnectorEvent): string {
  if (from === 'deleting') return `the connector is being deleted; ${event} is not possible`;
  if (TRANSIENT_STATES.includes(from)) return `the connector is ${from}; wait until it settles, then ${event} again`;
  if (event === 'disconnect' && from === 'created') return 'the connector was never connected';
  return `${event} is not possible in state ${from}`;
}

// Questions the workflow asks besides "which state follows this event", answered here so that
// every rule about what may happen in which state lives in this file.

/** The reason a caller's request is refused in `from` (an Update validator's 409), or null. */
export function refusal(from: ConnectorState, event: CallerEvent): string | null {
  const t = transition(from, event);
  return t.ok ? null : t.reason;
}

/**
 * What a caller's disconnect does: nothing on a connector already disconnected for good (or being
 * deleted); end the service's own retries on one that lost its connection for a while; otherwise
 * stop the work under way, tear down and record `disconnected`.
 */
export function disconnectPlan(state: ConnectorState, permanent: boolean | null): 'none' | 'end_retry' | 'teardown' {
  if (state === 'deleting') return 'none';
  if (state === 'disconnected') return permanent === false ? 'end_retry' : 'none';
  return 'teardown';
}

/**
 * An authorization's callback is taken only while the connector waits for it: in
 * `auth_required`, or connected with a step-up authorization offered.
 */
export function acceptsCallback(state: ConnectorState): boolean {
  return state === 'auth_required' || state === 'connected';
}

/** Whether the state that `event` leads to keeps the authorization request on offer (`auth_request`). */
export function keepsAuthorizationRequest(event: ConnectorEvent, to: ConnectorState): boolean {
  return to === 'auth_required' || event === 'step_up_issued';
}

/** The event of a failed callback: a step-up that fails leaves the token in force, connected. */
export function callbackFailureEvent(state: ConnectorState): ConnectorEvent {
  return state === 'connected' ? 'step_up_failed' : 'connect_failed';
}

/** The event of an authorization URL's deadline passing unused. */
export function authExpiryEvent(state: ConnectorState): ConnectorEvent {
  return state === 'connected' ? 'step_up_expired' : 'auth_timed_out';
}

/** The proxy may ask for a token refresh, or report a refused token, only while connected. */
export function acceptsUpstreamReport(state: ConnectorState): boolean {
  return state === 'connected';
}

/**
 * How a refresh's outcome shows in the lifecycle: a connector that lost its connection while the
 * authorization server was away is connected again, or its retries end; a connected one that
 * cannot refresh has lost its connection, or, when only a fresh identity assertion can renew it
 * (`needsAssertion`), asks for one. Null: the state says nothing changes.
 */
export function refreshOutcomeEvent(state: ConnectorState, ok: boolean, needsAssertion = false): ConnectorEvent | null {
  if (!ok && needsAssertion && isAllowed(state, 'assertion_required')) return 'assertion_required';
  if (ok) return state === 'disconnected' ? 'connect_succeeded' : null;
  if (state === 'connected') return 'connection_lost';
  if (state === 'disconnected') return 'disconnect';
  return null;
}

/** What the workflow watches over while nobody waits on it (workflows/watches.ts runs it). */
export type WatchKind = 'auth-expiry' | 'refresh' | 'workload' | null;

export interface WatchFacts {
  state: ConnectorState;
  /** An authorization URL was issued and has a deadline. */
  authorizationIssued: boolean;
  /** A managed stdio workload serves the connector. */
  workload: boolean;
  /** The grant has a refresh token. */
  refreshable: boolean;
  /** The access token has a known expiry (a token without one is refreshed on a 401 only). */
  expires: boolean;
  disconnectPermanent: boolean | null;
}

/**
 * Which watch a connector needs in its state: the deadline, the refresh timer or the workload.
 * Connected with a step-up offered and a token to refresh, the refresh wins: a step-up past its
 * deadline is then refused at the callback and replaced by the next one.
 */
export function watchNeeded(f: WatchFacts): WatchKind {
  if (f.state === 'auth_required' && f.authorizationIssued) return 'auth-expiry';
  if (f.state === 'connected' && f.workload) return 'workload';
  if (!f.refreshable) return f.state === 'connected' && f.authorizationIssued ? 'auth-expiry' : null;
  if (f.state === 'connected' && f.expires) return 'refresh';
  // A step-up offered while connected, with no refresh to run: its deadline is watched.
  if (f.state === 'connected' && f.authorizationIssued) return 'auth-expiry';
  // A connection lost while the authorization server was away: keep refreshing until it is back.
  if (f.state === 'disconnected' && f.disconnectPermanent === false) return 'refresh';
  return null;
}
