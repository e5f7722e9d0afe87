// The OAuth flow survives what real deployments go through: the whole stack SIGKILLed while the
// user is on the consent page and started again on the same DATA_DIR (the pending authorization,
// its state and PKCE verifier are durable, so the user's callback completes the flow on the new
// process); and an authorization server that goes away while the connector is connected (the
// refresh is retried, the connector is `disconnected` but not permanently once the access token
// runs out, and it reconnects by itself when the server is back on the same address, with the
// same keys and grants).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { freePortBelowEphemeral } from '../../service/free-port';
import { createConsentAgent, startOidcServer, startProtectedMcpServer } from '../fixtures/oauth';
import { observeAuthorizationServer } from '../helpers/oauth-as-observer';
import {
  CALLBACK_PATH, deliverCallback, openConsentPage, localMcpUrl, recordWhen, startFlow, whoami,
} from '../helpers/oauth-service';
import { startStackProcess } from '../helpers/stack-process';
import { eventually, filesContaining, startTestStack } from '../helpers/test-stack';

// Each test starts its own stack; run one at a time, so that two cores serve one stack at a time.
test.serial('the whole stack SIGKILLed while the user is on the consent page: the flow completes on the restarted stack', async (t) => {
  const as = await startOidcServer({ accessTokenTtl: 600 });
  const mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri });
  t.teardown(async () => {
    await mcp.close();
    await as.close();
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-oauth-crash-'));
  const logFile = path.join(dataDir, 'logs', 'stack.log');
  const port = await freePortBelowEphemeral();
  const env = { DATA_DIR: dataDir, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'debug' };

  const first = await startStackProcess({ env, logFile });
  const { id, res, connectMs } = await startFlow(first.api, { url: mcp.url });
  t.is(res.status, 200, res.text);
  t.is(res.body.state, 'auth_required');
  const authorizationUrl = res.body.auth_request.authorization_endpoint as string;
  const consent = await openConsentPage(port, authorizationUrl);
  await first.kill();

  // The user consents while no process of the service is alive.
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.href, { redirectUri: `http://127.0.0.1:${port}${CALLBACK_PATH}` });
  t.truthy(callback.searchParams.get('code'));

  const second = await startStackProcess({ env, logFile });
  t.teardown(() => second.stop());
  const before = (await second.api('GET', `/api/v1/connectors/${id}`)).body;
  t.is(before.state, 'auth_required', 'the pending authorization survived');
  t.is(before.auth_request.authorization_endpoint, authorizationUrl);

  const started = Date.now();
  const page = await deliverCallback(port, callback, consent.cookie);
  const callbackMs = Date.now() - started;
  t.is(page.status, 200, page.text.slice(0, 300));
  t.regex(page.text, /Connected/);
  t.is((await second.api('GET', `/api/v1/connectors/${id}`)).body.state, 'connected');
  const claims = await whoami(localMcpUrl(port, id));
  t.is(claims.sub, 'test-user');
  t.is(claims.scope, 'mcp:read');
  t.log(`connect → auth_required ${connectMs} ms; callback on the restarted stack → connected ${callbackMs} ms`);

  // The replayed callback is refused by the new process too.
  t.is((await deliverCallback(port, callback, consent.cookie)).status, 400);
  t.is(await second.stop(), 0);
  t.deepEqual(filesContaining(dataDir, callback.searchParams.get('code')!), [], 'the authorization code is nowhere in plaintext');
  for (const token of as.issuedRefreshTokens()) t.deepEqual(filesContaining(dataDir, token), [], 'refresh token in plaintext');
});

const TTL_S = 6;

/** A stack, an authorization server issuing short-lived tokens, and a connector authorized against it. */
async function connectedWithShortTokens(t: ExecutionContext) {
  const as = await startOidcServer({ accessTokenTtl: TTL_S });
  const seen = observeAuthorizationServer(as);
  const mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri });
  const stack = await startTestStack();
  t.teardown(async () => {
    await stack.stop();
    await mcp.close();
    await as.close();
  });
  const { id, res } = await startFlow(stack.api, { url: mcp.url });
  t.is(res.status, 200, res.text);
  const consent = await openConsentPage(stack.port, res.body.auth_request.authorization_endpoint);
  const authorizationUrl = consent.authorizationUrl;
  const callback = await createConsentAgent().authorize(authorizationUrl.toString(), { redirectUri: `${stack.baseUrl}${CALLBACK_PATH}` });
  t.is((await deliverCallback(stack.port, callback, consent.cookie)).status, 200);
  return { as, seen, stack, id, clientId: authorizationUrl.searchParams.get('client_id')! };
}

test.serial('the authorization server down during refresh: disconnected, not permanently; back on the same address: reconnected by itself', async (t) => {
  const { as, seen, stack, id, clientId } = await connectedWithShortTokens(t);
  const mcpUrl = localMcpUrl(stack.port, id);
  t.is((await whoami(mcpUrl)).client_id, clientId);

  // The authorization server goes away: every connection to it is refused.
  await as.suspend();
  const lost = await recordWhen(stack.api, id, (r) => r.state === 'disconnected', TTL_S * 4000, 'the connector disconnected');
  t.false(lost.disconnect_permanent, `not permanent: ${lost.disconnect_reason}`);
  t.regex(lost.disconnect_reason, /unreachable|retrying/);
  // The proxy stops passing requests (once its route cache, about a second, has caught up).
  const refused = await eventually(async () => {
    const answer = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }) });
    // A JSON-RPC request is answered in JSON-RPC: the problem details are the error's data.
    const reply = (await answer.json().catch(() => null)) as { id?: unknown; error?: { code?: number; data?: { connector_state?: string } } } | null;
    return answer.status === 409 ? reply : undefined;
  }, 10_000, 'the proxy refusing while disconnected');
  t.is(refused?.id, 7);
  t.is(refused?.error?.code, -32010);
  t.is(refused?.error?.data?.connector_state, 'disconnected');

  // The same server comes back: same port, same keys, same grants.
  const refreshesBefore = seen.tokenRequests(clientId).filter((r) => r.grantType === 'refresh_token').length;
  await as.resume();
  const back = await recordWhen(stack.api, id, (r) => r.state === 'connected', 120_000, 'the connector reconnected');
  t.is(back.disconnect_reason, null);
  t.true(seen.tokenRequests(clientId).filter((r) => r.grantType === 'refresh_token').length > refreshesBefore, 'reconnected by a refresh at the server come back');
  // The proxy's route cache may answer from the disconnected record for a moment (about a second).
  const claims = await eventually(() => whoami(mcpUrl), 10_000, 'the proxy passing requests again');
  t.is(claims.client_id, clientId, 'usable again through the proxy');
  const events = (await stack.api('GET', `/api/v1/connectors/${id}/events?limit=100`)).body.items as { to: string; reason: string | null; actor: string }[];
  const afterConsent = events.slice(events.findIndex((e) => e.to === 'connected'));
  t.deepEqual(afterConsent.map((e) => `${e.actor} → ${e.to}`), ['user → connected', 'service → disconnected', 'service → connected'], JSON.stringify(events));
});

test.serial('a disconnect while a transient loss is being retried ends the retry for good, in the caller’s name', async (t) => {
  const { as, stack, id } = await connectedWithShortTokens(t);

  await as.suspend();
  const lost = await recordWhen(stack.api, id, (r) => r.state === 'disconnected', TTL_S * 4000, 'the transient loss');
  t.false(lost.disconnect_permanent);

  const answer = await stack.api('POST', `/api/v1/connectors/${id}/disconnect`);
  t.is(answer.status, 200, answer.text);
  t.is(answer.body.state, 'disconnected');
  t.true(answer.body.disconnect_permanent, 'no longer retried by the service');
  const events = (await stack.api('GET', `/api/v1/connectors/${id}/events?limit=100`)).body.items as { actor: string; from: string; to: string }[];
  const last = events.at(-1)!;
  t.is(`${last.from} → ${last.to}`, 'disconnected → disconnected');
  t.not(last.actor, 'service', 'the caller is the actor');

  // The authorization server comes back: nothing reconnects a connector its caller disconnected.
  await as.resume();
  await new Promise((r) => setTimeout(r, TTL_S * 1000));
  const after = (await stack.api('GET', `/api/v1/connectors/${id}`)).body;
  t.is(after.state, 'disconnected');
  t.is(after.updated_at, answer.body.updated_at);
});
