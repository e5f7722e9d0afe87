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

export function isState(value: unknown): value is ConnectorState {
  return typeof value === 'string' && (STATES as readonly string[]).includes(value);
}
