// An authorization server that issues tokens of seconds (an owner's, by mistake or on purpose),
// against the default floor between renewals (CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS, 30 s): a
// real oidc-provider issuing 2 s tokens, an MCP server that verifies their expiry, the real stack.
// The worker does not renew them on their schedule (a third of their life early, every 1.3 s);
// the connector stays connected, and a call with the expired token is answered after one renewal
// that the MCP server's 401 asks for through the proxy.
import test from 'ava';
import { createConsentAgent, startOidcServer, startProtectedMcpServer, type OidcServer, type ProtectedMcpServer } from '../fixtures/oauth';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { CALLBACK_PATH, deliverCallback, openConsentPage, startFlow, whoami } from '../helpers/oauth-service';

const TOKEN_TTL_S = 2;
let stack: TestStack;
let as: OidcServer;
let mcp: ProtectedMcpServer;

test.before(async () => {
  as = await startOidcServer({ accessTokenTtl: TOKEN_TTL_S });
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, scopesSupported: ['mcp:read'] });
  // The default, which the other tests lower to see renewals of their short tokens (service-env.ts).
  stack = await startTestStack({ CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS: '30' });
});

test.after.always(async () => {
  await stack?.stop();
  await mcp?.close();
  await as?.close();
});

test('tokens of 2 s are not renewed every 1.3 s: the connector stays connected, and a call with an expired token is answered after one renewal', async (t) => {
  const { id, res } = await startFlow(stack.api, { url: mcp.url });
  t.is(res.body.state, 'auth_required', JSON.stringify(res.body));
  const consent = await openConsentPage(stack.port, res.body.auth_request.authorization_endpoint);
  const callback = await createConsentAgent().authorize(consent.authorizationUrl.href, { redirectUri: `${stack.baseUrl}${CALLBACK_PATH}`, decision: 'approve' });
  t.is((await deliverCallback(stack.port, callback, consent.cookie)).status, 200);
  t.is((await stack.api('GET', `/api/v1/connectors/${id}`)).body.state, 'connected');

  const issued = as.issuedRefreshTokens().length;
  await new Promise((resolve) => setTimeout(resolve, 4 * TOKEN_TTL_S * 1000)); // three renewals, without the floor
  t.is(as.issuedRefreshTokens().length, issued, 'no renewal on the schedule in four lifetimes of the token');
  t.is((await stack.api('GET', `/api/v1/connectors/${id}`)).body.state, 'connected');

  t.regex((await whoami(`${stack.baseUrl}/api/v1/connectors/${id}/mcp`)).scope ?? '', /mcp:read/, 'the call is answered');
  t.is(as.issuedRefreshTokens().length, issued + 1, "one renewal, on the MCP server's refusal of the expired token");
  const events = (await stack.api('GET', `/api/v1/connectors/${id}/events`)).body.items as { from: string | null; to: string }[];
  t.deepEqual(events.map((e) => [e.from, e.to]), [
    [null, 'created'], ['created', 'connecting'], ['connecting', 'auth_required'], ['auth_required', 'connected'],
  ], 'the expired token was no transition');
});
