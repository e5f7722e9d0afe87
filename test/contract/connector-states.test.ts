import test from 'ava';
import {
  EVENTS, STATES, TRANSIENT_STATES, acceptsCallback, acceptsUpstreamReport, authExpiryEvent, callbackFailureEvent, disconnectPlan, keepsAuthorizationRequest, isAllowed, refreshOutcomeEvent, refusal,
  transition, watchNeeded, type ConnectorEvent, type ConnectorState,
} from '../../contract/connector-states';

// The contract of the specification's decisions ("States"), written out independently of the
// table in the module, so that a change to either shows up here.
const EXPECTED: Record<ConnectorState, Partial<Record<ConnectorEvent, ConnectorState>>> = {
  created: { connect: 'connecting', delete: 'deleting' },
  connecting: {
    disconnect: 'disconnecting', delete: 'deleting', connect_succeeded: 'connected', connect_failed: 'disconnected', auth_issued: 'auth_required',
  },
  auth_required: {
    connect: 'connecting', disconnect: 'disconnecting', delete: 'deleting', auth_timed_out: 'disconnected',
    connect_succeeded: 'connected', connect_failed: 'disconnected',
  },
  connected: {
    connect: 'connecting', disconnect: 'disconnecting', delete: 'deleting', connection_lost: 'disconnected',
    // decisions.md, MCP protocol revisions: a 401 no refresh cures asks the user again, never
    // silently disconnects; a 403 insufficient_scope keeps the connector connected with a step-up on offer
    auth_issued: 'auth_required', connect_succeeded: 'connected',
    step_up_issued: 'connected', step_up_failed: 'connected', step_up_expired: 'connected',
    // an enterprise-managed grant whose identity assertion is dead asks for a fresh one (issue 41)
    assertion_required: 'auth_required',
  },
  disconnecting: { delete: 'deleting', disconnect_finished: 'disconnected' },
  disconnected: { connect: 'connecting', disconnect: 'disconnected', delete: 'deleting', connect_succeeded: 'connected', assertion_required: 'auth_required' },
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

test('a refused caller request carries the state machine\'s reason; an accepted one none', (t) => {
  t.is(refusal('created', 'disconnect'), 'the connector was never connected');
  t.is(refusal('connecting', 'connect'), 'the connector is connecting; wait until it settles, then connect again');
  t.is(refusal('deleting', 'connect'), 'the connector is being deleted; connect is not possible');
  t.is(refusal('connected', 'connect'), null);
});

test('disconnect: nothing to do when already disconnected for good or deleting; a transient loss ends its retries; else tear down', (t) => {
  t.is(disconnectPlan('disconnected', true), 'none');
  t.is(disconnectPlan('deleting', null), 'none');
  t.is(disconnectPlan('disconnected', false), 'end_retry');
  for (const state of ['connecting', 'auth_required', 'connected'] as const) t.is(disconnectPlan(state, null), 'teardown', state);
});

test('callbacks only while waiting for one; proxy reports only while connected', (t) => {
  t.deepEqual(STATES.filter(acceptsCallback), ['auth_required', 'connected'], 'connected: a step-up authorization');
  t.deepEqual(STATES.filter(acceptsUpstreamReport), ['connected']);
});

test('a refresh outcome: back to connected after a transient loss, lost when connected, retries ended when disconnected', (t) => {
  t.is(refreshOutcomeEvent('disconnected', true), 'connect_succeeded');
  t.is(refreshOutcomeEvent('connected', true), null);
  t.is(refreshOutcomeEvent('connected', false), 'connection_lost');
  t.is(refreshOutcomeEvent('disconnected', false), 'disconnect');
  t.is(refreshOutcomeEvent('deleting', false), null);
  // Only a fresh identity assertion renews a dead enterprise-managed grant: it is asked for.
  t.is(refreshOutcomeEvent('connected', false, true), 'assertion_required');
  t.is(refreshOutcomeEvent('disconnected', false, true), 'assertion_required');
  t.is(refreshOutcomeEvent('connected', true, true), null);
  t.is(refreshOutcomeEvent('deleting', false, true), null);
  for (const state of STATES) {
    for (const ok of [true, false]) {
      const event = refreshOutcomeEvent(state, ok);
      if (event) t.true(isAllowed(state, event), `${state} ${ok}: ${event} is a transition of the table`);
    }
  }
});

test('the watch a state needs', (t) => {
  const facts = { state: 'connected' as ConnectorState, authorizationIssued: false, workload: false, refreshable: true, expires: true, disconnectPermanent: null };
  t.is(watchNeeded(facts), 'refresh');
  t.is(watchNeeded({ ...facts, expires: false }), null, 'no expiry: refreshed on a 401 only');
  t.is(watchNeeded({ ...facts, workload: true }), 'workload');
  t.is(watchNeeded({ ...facts, state: 'auth_required', authorizationIssued: true }), 'auth-expiry');
  t.is(watchNeeded({ ...facts, state: 'disconnected', disconnectPermanent: false }), 'refresh');
  t.is(watchNeeded({ ...facts, state: 'disconnected', disconnectPermanent: true }), null);
  t.is(watchNeeded({ ...facts, refreshable: false }), null);
  t.is(watchNeeded({ ...facts, refreshable: false, authorizationIssued: true }), 'auth-expiry', 'a step-up offered while connected');
  t.is(watchNeeded({ ...facts, expires: false, authorizationIssued: true }), 'auth-expiry');
  t.is(watchNeeded({ ...facts, authorizationIssued: true }), 'refresh', 'the refresh wins; the callback checks the deadline');
});

test('a step-up: offered while connected, kept by its own event only; its failure and its deadline leave the token in force', (t) => {
  t.true(keepsAuthorizationRequest('step_up_issued', 'connected'));
  t.true(keepsAuthorizationRequest('auth_issued', 'auth_required'));
  for (const event of ['connect_succeeded', 'step_up_failed', 'step_up_expired', 'connection_lost'] as const) {
    const to = transition('connected', event);
    t.true(to.ok && !keepsAuthorizationRequest(event, to.to), event);
  }
  t.is(callbackFailureEvent('connected'), 'step_up_failed');
  t.is(callbackFailureEvent('auth_required'), 'connect_failed');
  t.is(authExpiryEvent('connected'), 'step_up_expired');
  t.is(authExpiryEvent('auth_required'), 'auth_timed_out');
  for (const state of STATES.filter(acceptsCallback)) {
    t.true(isAllowed(state, callbackFailureEvent(state)), state);
    t.true(isAllowed(state, authExpiryEvent(state)), state);
    t.true(isAllowed(state, 'connect_succeeded'), state);
  }
});
