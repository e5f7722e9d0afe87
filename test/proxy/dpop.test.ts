// The proxy's upstream requests for a connector whose token is DPoP-bound (RFC 9449): the relay
// and the upstream client (toolsets, the worker's task calls) present the token with the DPoP
// scheme and a fresh proof per request, checked by jose (fixtures/oauth/dpop-verifier.ts); a 401
// use_dpop_nonce is sent again once with the nonce, which later requests carry at once, and the
// MCP client never sees it. A Bearer connector to the same server sends no proof, and a caller's
// own DPoP header never crosses.
import crypto from 'node:crypto';
import anyTest, { type TestFn } from 'ava';
import { generateDpopKeyJwk, openDpopKey } from '../../platform/dpop-proof';
import { createLogger } from '../../platform/logger';
import { staticRoutes } from '../../proxy/static-routes';
import { UpstreamClient } from '../../proxy/upstream-client';
import type { ConnectedRoute } from '../../proxy/route';
import { createDpopVerifier, type DpopVerifier } from '../fixtures/oauth/dpop-verifier';
import { startRecordingMcpServer, type RecordingMcpServer } from '../fixtures/recording-mcp-server';
import { connectClient, startProxy, type ProxyHarness } from './proxy-harness';

const NONCE = 'rs-nonce-7';
const key = openDpopKey(generateDpopKeyJwk());
// What the verifier reads of a token is its cnf.jkt: the token need not be signed for the proxy's part.
const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const TOKEN = `${part({ alg: 'none' })}.${part({ cnf: { jkt: key.thumbprint }, n: crypto.randomUUID() })}.sig`;

const test = anyTest as TestFn<{ upstream: RecordingMcpServer; verifier: DpopVerifier; proxy: ProxyHarness; routes: Record<string, ConnectedRoute> }>;

test.before(async (t) => {
  let verifier!: DpopVerifier;
  const upstream = await startRecordingMcpServer({
    enableJsonResponse: true,
    gate: async (req) => {
      if (req.headers.authorization === 'Bearer plain-token') return null;
      if (req.headers.authorization !== `DPoP ${TOKEN}`) return { status: 401, headers: { 'www-authenticate': 'DPoP error="invalid_token"' } };
      const checked = await verifier.check(req.headers.dpop, TOKEN, req.method ?? 'GET');
      if (checked.ok) return null;
      const nonce: Record<string, string> = checked.error === 'use_dpop_nonce' ? { 'dpop-nonce': NONCE } : {};
      return { status: 401, headers: { ...nonce, 'www-authenticate': `DPoP error="${checked.error}", error_description="${checked.why}"` } };
    },
  });
  verifier = createDpopVerifier(upstream.url, NONCE);
  const routes: Record<string, ConnectedRoute> = {
    bound: { kind: 'connected', target: upstream.url, token: TOKEN, sealedToken: 'sealed', dpop: key },
    bearer: { kind: 'connected', target: upstream.url, token: 'plain-token', sealedToken: 'sealed-plain' },
  };
  const proxy = await startProxy(staticRoutes(routes));
  t.context = { upstream, verifier, proxy, routes };
});

test.after.always(async (t) => {
  await t.context.proxy?.close();
  await t.context.upstream?.close();
});

test.serial('the relay: DPoP scheme and a valid proof on every request; the nonce asked for once, then carried', async (t) => {
  const { upstream, verifier, proxy } = t.context;
  const forged = { requestInit: { headers: { dpop: 'forged-by-the-caller' } } };
  const { client, transport } = await connectClient(proxy.mcpUrl('bound'), forged);
  t.true((await client.listTools()).tools.length > 0);
  await client.callTool({ name: 'echo', arguments: { text: 'hi' } }).catch(() => undefined);
  const seen = upstream.requests.filter((r) => r.headers.authorization === `DPoP ${TOKEN}`);
  t.true(seen.length >= 3);
  t.true(seen.every((r) => typeof r.headers.dpop === 'string' && r.headers.dpop !== 'forged-by-the-caller'));
  t.is(verifier.nonceRefusals, 1, 'one refusal for the nonce, whatever followed');
  t.is(verifier.accepted, seen.length - 1, 'every other request carried a proof the server accepted');
  await client.close();
  t.truthy(transport.sessionId);
});

test.serial('the upstream client (toolsets, task calls): a proof per request, the nonce it already holds', async (t) => {
  const { verifier, routes, upstream } = t.context;
  const client = new UpstreamClient({ routes: staticRoutes(routes), policy: { blockPrivateNetworks: false }, logger: createLogger('dpop-test', 'silent') });
  t.teardown(() => client.destroy());
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }));
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const accepted = verifier.accepted;
  const refusals = verifier.nonceRefusals;
  const { answer } = await client.send('bound', routes.bound!, { method: 'POST', headers, body });
  t.is(answer.statusCode, 200);
  answer.resume();
  t.is(verifier.accepted, accepted + 1);
  t.is(verifier.nonceRefusals, refusals + 1, 'its own process\'s first request to the origin is asked for the nonce');
  const again = await client.send('bound', routes.bound!, { method: 'POST', headers, body });
  again.answer.resume();
  t.is(verifier.nonceRefusals, refusals + 1, 'the second carries it at once');
  t.true(upstream.requests.length > 0);
});

test.serial('a Bearer connector to the same server: Bearer, no proof, the caller\'s DPoP header dropped', async (t) => {
  const { upstream, proxy } = t.context;
  const { client } = await connectClient(proxy.mcpUrl('bearer'), { requestInit: { headers: { dpop: 'forged-by-the-caller' } } });
  await client.listTools();
  await client.close();
  const seen = upstream.requests.filter((r) => r.headers.authorization === 'Bearer plain-token');
  t.true(seen.length > 0);
  t.true(seen.every((r) => r.headers.dpop === undefined));
});
