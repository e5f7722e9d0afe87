// Re-authorization during use, in the connector workflow alone (stub activities): a refusal no
// refresh cures asks the user again (auth_required, fresh URL; an enterprise-managed grant a fresh
// id_token), never silently disconnects; a
// step-up keeps the connector connected with a URL on offer, reused while it covers the scopes,
// and ends with a wider grant, a failure that keeps the old token, or its deadline.
import test from 'ava';
import { ApplicationFailure } from '@temporalio/common';
import type { ConnectorState } from '../../contract/connector-states';
import { FAILURE } from '../../contract/failures';
import {
  callbackUpdate, connectUpdate, deleteUpdate, refreshUpdate, routeQuery, stepUpUpdate, upstreamRefusedUpdate, viewQuery,
} from '../../workflows/messages';
import { authorizeAnswer, startHarness, tokens, until, type Harness } from './support/workflow-harness';

let h: Harness;
test.before(async () => {
  h = await startHarness();
});
test.after.always(async () => {
  await h?.stop();
});
test.afterEach.always(() => {
  h.stubs.behaviour = {};
});

const actor = { actor: 'tester' };
const recordOf = (id: string) => h.stubs.records.get(id);
const lastEvent = (id: string) => (h.stubs.events.get(id) ?? []).at(-1)!;
const inState = (id: string, state: ConnectorState) => () => (recordOf(id)?.state === state ? recordOf(id) : undefined);
const challenge = { resourceMetadata: 'https://mcp.invalid/.well-known/oauth-protected-resource/mcp', scope: 'mcp:read' };

/** A connector connected through OAuth; its tokens as `grant` makes them. */
async function authorized(grant = () => tokens(3_600_000)) {
  const stateHash = `h-${Math.random()}`;
  h.stubs.behaviour.oauthAuthorize = async () => authorizeAnswer(stateHash, 60_000);
  h.stubs.behaviour.oauthComplete = async () => grant();
  const handle = await h.start();
  const id = (await handle.query(viewQuery)).id;
  await handle.executeUpdate(connectUpdate, { args: [actor] });
  const outcome = await handle.executeUpdate(callbackUpdate, { args: [{ stateHash, callback: 'sealed-callback' as never }] });
  if (outcome.error) throw new Error(`callback failed: ${outcome.errorDescription}`);
  const token = (await handle.query(routeQuery)).token!;
  return { handle, id, token };
}

test.serial('a revoked grant met by the proxy: the refresh fails, the refusal issues a fresh authorization URL, and its callback connects again', async (t) => {
  const { handle, id, token } = await authorized();
  h.stubs.behaviour.oauthRefresh = async () => {
    throw ApplicationFailure.create({ type: FAILURE.invalidGrant, message: 'grant revoked', nonRetryable: true });
  };
  const afterRefresh = await handle.executeUpdate(refreshUpdate, { args: [{ usedToken: token }] });
  t.is(afterRefresh.state, 'connected', 'a failed refresh the proxy asked for leaves the state to its refusal report');
  t.is(afterRefresh.token, token);

  const stateHash = `h-again-${Math.random()}`;
  h.stubs.behaviour.oauthAuthorize = async () => authorizeAnswer(stateHash, 60_000);
  const route = await handle.executeUpdate(upstreamRefusedUpdate, { args: [{ usedToken: token, status: 401, challenge }] });
  t.is(route.state, 'auth_required');
  t.is(route.token, null);
  t.is(route.authorizationUrl, 'https://as.invalid/authorize?state=opaque');
  const discovery = h.stubs.called('oauthDiscover').at(-1)!.input as { challenge: unknown };
  t.deepEqual(discovery.challenge, challenge, 'the server\'s challenge starts the new authorization');
  const record = await until(inState(id, 'auth_required'), 'auth_required on record');
  t.like(record.auth_request, { type: 'code', authorization_endpoint: 'https://as.invalid/authorize?state=opaque' });
  t.like(lastEvent(id), { from: 'connected', to: 'auth_required', actor: 'service' });
  t.regex(lastEvent(id).reason ?? '', /refused the access token \(HTTP 401\) and a refresh did not help; authorization URL issued/);

  const outcome = await handle.executeUpdate(callbackUpdate, { args: [{ stateHash, callback: 'sealed-callback' as never }] });
  t.is(outcome.error, null);
  t.is((await handle.query(viewQuery)).state, 'connected');
  t.not((await handle.query(routeQuery)).token, token);
  await handle.executeUpdate(deleteUpdate, { args: [actor] });
});

test.serial("an enterprise-managed grant whose identity assertion the identity provider refuses: a 401 asks for a fresh id_token, no URL, and a connect with one connects again", async (t) => {
  const assertion = { idpTokenEndpoint: 'https://idp.invalid/token', idpClientId: 'idp-svc', idpClientSecret: null, idToken: 'sealed-id-token' as never, idTokenExpiresAt: null, issuer: 'https://idp.invalid' };
  const grant = { client: { clientId: 'svc', clientSecret: 'sealed-secret' as never, privateKey: null }, assertion };
  const { context } = await (h.stubs.activities().oauthEnterpriseManaged as (i: unknown) => Promise<{ context: object }>)({});
  h.stubs.calls = [];
  h.stubs.behaviour.oauthEnterpriseManaged = async () => ({ context: { ...context, enterprise: assertion }, tokens: tokens(3_600_000, false) }) as never;
  h.stubs.behaviour.oauthRenewEnterpriseManaged = async () => {
    throw ApplicationFailure.create({ type: FAILURE.invalidGrant, message: 'the token exchange was refused: the grant is invalid, expired or revoked', nonRetryable: true });
  };
  const handle = await h.start();
  const id = (await handle.query(viewQuery)).id;
  t.is((await handle.executeUpdate(connectUpdate, { args: [{ ...actor, enterpriseManaged: grant }] })).state, 'connected');
  const token = (await handle.query(routeQuery)).token!;
  t.is((await handle.executeUpdate(refreshUpdate, { args: [{ usedToken: token }] })).state, 'connected', 'the refusal report decides');

  const route = await handle.executeUpdate(upstreamRefusedUpdate, { args: [{ usedToken: token, status: 401, challenge }] });
  t.like(route, { state: 'auth_required', token: null, authorizationUrl: null });
  t.is(h.stubs.called('oauthAuthorize').length, 0, 'no authorization URL for a grant without a browser');
  const record = await until(inState(id, 'auth_required'), 'auth_required on record');
  t.like(record.auth_request, { type: 'assertion', needs: 'id_token', issuer: 'https://idp.invalid' });
  t.like(lastEvent(id), { from: 'connected', to: 'auth_required', actor: 'service' });
  t.regex(lastEvent(id).reason ?? '', /refused the access token \(HTTP 401\).*identity assertion obtains no token.*fresh id_token/);

  const again = await handle.executeUpdate(connectUpdate, { args: [{ ...actor, enterpriseManaged: { ...grant, assertion: { ...assertion, idToken: 'sealed-fresh' as never } } }] });
  t.like(again, { state: 'connected', auth_request: null });
  await handle.executeUpdate(deleteUpdate, { args: [actor] });
});

test.serial('a given token refused: auth_required when the server names an authorization; disconnected, saying why, when none can be started', async (t) => {
  const handle = await h.start();
  const id = (await handle.query(viewQuery)).id;
  await handle.executeUpdate(connectUpdate, { args: [{ ...actor, accessToken: 'sealed-given-1' as never }] });
  const route = await handle.executeUpdate(upstreamRefusedUpdate, { args: [{ usedToken: 'sealed-given-1' as never, status: 401, challenge: null }] });
  t.is(route.state, 'auth_required');
  t.regex(lastEvent(id).reason ?? '', /refused the token \(HTTP 401\); authorization URL issued/);

  const other = await h.start();
  const otherId = (await other.query(viewQuery)).id;
  await other.executeUpdate(connectUpdate, { args: [{ ...actor, accessToken: 'sealed-given-2' as never }] });
  h.stubs.behaviour.oauthDiscover = async () => {
    throw ApplicationFailure.create({ type: FAILURE.unprocessable, message: 'no authorization server metadata', nonRetryable: true });
  };
  const lost = await other.executeUpdate(upstreamRefusedUpdate, { args: [{ usedToken: 'sealed-given-2' as never, status: 401, challenge: null }] });
  t.is(lost.state, 'disconnected');
  const record = await until(inState(otherId, 'disconnected'), 'disconnected on record');
  t.regex(record.disconnect_reason ?? '', /refused the token \(HTTP 401\); no new authorization could be started \(no authorization server metadata\)/);
  t.true(record.disconnect_permanent);
  delete h.stubs.behaviour.oauthDiscover;
  await handle.executeUpdate(deleteUpdate, { args: [actor] });
  await other.executeUpdate(deleteUpdate, { args: [actor] });
});

test.serial('a report about a token already replaced changes nothing', async (t) => {
  const { handle } = await authorized();
  const calls = h.stubs.called('oauthProbe').length;
  const route = await handle.executeUpdate(upstreamRefusedUpdate, { args: [{ usedToken: 'sealed-old' as never, status: 401, challenge: null }] });
  t.is(route.state, 'connected');
  const stepUp = await handle.executeUpdate(stepUpUpdate, { args: [{ usedToken: 'sealed-old' as never, scope: 'mcp:admin', challenge: null }] });
  t.is(stepUp.authorizationUrl, null);
  t.is(h.stubs.called('oauthProbe').length, calls);
  await handle.executeUpdate(deleteUpdate, { args: [actor] });
});

test.serial('step-up: connected with the URL on offer, reused while it covers the scopes; the callback brings the wider token', async (t) => {
  const { handle, id, token } = await authorized();
  const stateHash = `h-step-${Math.random()}`;
  h.stubs.behaviour.oauthAuthorize = async (input) => {
    const answer = authorizeAnswer(stateHash, 60_000) as { pending: { context: Record<string, unknown> } };
    // The stub's authorization asks for what it was told, as the real one unions them.
    const scope = [...new Set(input.scopes.extra)].join(' ');
    return { ...answer, pending: { ...answer.pending, context: { ...answer.pending.context, scope } } } as never;
  };
  const request = { usedToken: token, scope: 'mcp:admin', challenge };
  const first = await handle.executeUpdate(stepUpUpdate, { args: [request] });
  t.is(first.route.state, 'connected');
  t.is(first.route.token, token, 'the token in force keeps working');
  t.is(first.authorizationUrl, 'https://as.invalid/authorize?state=opaque');
  const begins = h.stubs.called('oauthAuthorize');
  const discovery = h.stubs.called('oauthDiscover').at(-1)!.input as { challenge: { scope: string } };
  t.is(discovery.challenge.scope, 'mcp:admin');
  const record = await until(() => (recordOf(id)?.auth_request ? recordOf(id) : undefined), 'the step-up on record');
  t.is(record.state, 'connected');
  t.like(lastEvent(id), { from: 'connected', to: 'connected', actor: 'service' });
  t.regex(lastEvent(id).reason ?? '', /asked for more scope \(mcp:admin\); step-up authorization URL issued/);

  const again = await handle.executeUpdate(stepUpUpdate, { args: [request] });
  t.is(again.authorizationUrl, first.authorizationUrl);
  t.is(h.stubs.called('oauthAuthorize').length, begins.length, 'the offer covering the scopes is reused');

  const outcome = await handle.executeUpdate(callbackUpdate, { args: [{ stateHash, callback: 'sealed-callback' as never }] });
  t.is(outcome.error, null);
  const after = await handle.query(viewQuery);
  t.like(after, { state: 'connected', auth_request: null });
  t.not((await handle.query(routeQuery)).token, token);
  await handle.executeUpdate(deleteUpdate, { args: [actor] });
});

test.serial('step-up: a failed callback keeps the connector connected with its token; an unused offer ends at its deadline', async (t) => {
  const { handle, id, token } = await authorized(() => tokens(null, false));
  const stateHash = `h-fail-${Math.random()}`;
  h.stubs.behaviour.oauthAuthorize = async () => authorizeAnswer(stateHash, 60_000);
  await handle.executeUpdate(stepUpUpdate, { args: [{ usedToken: token, scope: 'mcp:admin', challenge: null }] });
  h.stubs.behaviour.oauthComplete = async () => {
    throw ApplicationFailure.create({ type: FAILURE.authorizationFailed, message: 'access_denied', nonRetryable: true, details: [{ oauthError: 'access_denied' }] });
  };
  const outcome = await handle.executeUpdate(callbackUpdate, { args: [{ stateHash, callback: 'sealed-callback' as never }] });
  t.is(outcome.error, 'access_denied');
  t.like(await handle.query(viewQuery), { state: 'connected', auth_request: null });
  t.is((await handle.query(routeQuery)).token, token);
  t.like(lastEvent(id), { from: 'connected', to: 'connected' });

  h.stubs.behaviour.oauthAuthorize = async () => authorizeAnswer(`h-expiring-${Math.random()}`, 1_500);
  const offer = await handle.executeUpdate(stepUpUpdate, { args: [{ usedToken: token, scope: 'mcp:write', challenge: null }] });
  t.truthy(offer.authorizationUrl);
  await until(() => (lastEvent(id).reason === 'authorization timed out' ? true : undefined), 'the offer to expire');
  t.like(await handle.query(viewQuery), { state: 'connected', auth_request: null });
  t.is((await handle.query(routeQuery)).token, token);
  await handle.executeUpdate(deleteUpdate, { args: [actor] });
});
