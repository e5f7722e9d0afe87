import test from 'ava';
import { EVENTS, STATES, TRANSIENT_STATES, isAllowed, transition, type ConnectorEvent, type ConnectorState } from '../../core/connector-states';

// The contract of decisions.md, written out independently of the table in the module, so that
// a change to either shows up here.
const EXPECTED: Record<ConnectorState, Partial<Record<ConnectorEvent, ConnectorState>>> = {
  created: { connect: 'connecting', delete: 'deleting' },
  connecting: {
    disconnect: 'disconnecting', delete: 'deleting', connect_succeeded: 'connected', connect_failed: 'disconnected', auth_issued: 'auth_required',
  },
  auth_required: {
    connect: 'connecting', disconnect: 'disconnecting', delete: 'deleting', auth_timed_out: 'disconnected',
    connect_succeeded: 'connected', connect_failed: 'disconnected',
  },
  connected: { connect: 'connecting', disconnect: 'disconnecting', delete: 'deleting', connection_lost: 'disconnected' },
  disconnecting: { delete: 'deleting', disconnect_finished: 'disconnected' },
  disconnected: { connect: 'connecting', disconnect: 'disconnected', delete: 'deleting', connect_succeeded: 'connected' },
  deleting: { delete: 'deleting' },
};

for (const state of STATES) {
  for (const event of EVENTS) {
    test(`${state} × ${event}`, (t) => {
      const expected = EXPECTED[state][event];
      const result = transition(state, event);
      if (expected) {
        t.deepEqual(result, { ok: true, from: state, to: expected });
        t.true(isAllowed(state, event));
      } else {
        t.false(result.ok);
        t.false(isAllowed(state, event));
        if (!result.ok) t.regex(result.reason, /\S/);
      }
    });
  }
}

test('delete is accepted in every state', (t) => {
  for (const state of STATES) t.true(isAllowed(state, 'delete'), state);
});

test('connect is refused in transient states and while deleting, with a reason naming the state', (t) => {
  for (const state of TRANSIENT_STATES) {
    const result = transition(state, 'connect');
    t.false(result.ok);
    if (!result.ok) t.true(result.reason.includes(state) || result.reason.includes('deleted'), result.reason);
  }
});

test('disconnect is refused in created, disconnecting and deleting, and accepted everywhere else', (t) => {
  const refused = STATES.filter((s) => !isAllowed(s, 'disconnect'));
  t.deepEqual(refused.sort(), ['created', 'deleting', 'disconnecting'].sort());
});
