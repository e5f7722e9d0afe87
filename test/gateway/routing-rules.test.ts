// The gateway's routing decisions on their own: version negotiation, which session may answer a
// server request and which one is asked, and what environment a child server gets.
import test from 'ava';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { canAnswer, chooseSession } from '../../gateway/choose-session';
import { negotiateVersion } from '../../gateway/from-session';
import { GatewaySession } from '../../gateway/session';
import { startGateway } from '../../gateway/start-gateway';
import { connect } from './support/clients';
import { everythingSource, quietLogger } from './support/stdio-servers';

const sampling: JSONRPCRequest = { jsonrpc: '2.0', id: 5, method: 'sampling/createMessage', params: {} };

function sessionWith(capabilities: GatewaySession['clientCapabilities'], options: { inflight?: number[]; listening?: boolean } = {}) {
  const session = new GatewaySession(`session-${Math.random()}`, { idleMs: 0, firstRequestMs: 0 });
  session.clientCapabilities = capabilities;
  // Client ids collide across sessions; here each is its upstream id times ten, to tell them apart.
  for (const upstreamId of options.inflight ?? []) session.addInflight({ clientId: upstreamId * 10, upstreamId });
  if (options.listening) session.trackExchange(true, () => undefined);
  return session;
}

test('the negotiated version is the client’s when the server speaks it, else the server’s', (t) => {
  t.is(negotiateVersion('2025-03-26', '2025-11-25'), '2025-03-26');
  t.is(negotiateVersion('2025-11-25', '2025-06-18'), '2025-06-18');
  t.is(negotiateVersion('1999-01-01', '2025-11-25'), '2025-11-25');
});

test('only sessions that declared the capability may answer', (t) => {
  t.true(canAnswer({ sampling: {} }, sampling));
  t.false(canAnswer({ roots: {} }, sampling));
  const urlElicitation: JSONRPCRequest = { jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: { mode: 'url' } };
  t.false(canAnswer({ elicitation: {} }, urlElicitation));
  t.true(canAnswer({ elicitation: { url: {} } }, urlElicitation));
  t.true(canAnswer({ elicitation: {} }, { ...urlElicitation, params: { mode: 'form' } }));
  t.true(canAnswer({ roots: {} }, { jsonrpc: '2.0', id: 2, method: 'roots/list' }));
});

test('the capable session with the latest request in flight is asked, on that request’s stream', (t) => {
  const older = sessionWith({ sampling: {} }, { inflight: [3] });
  const newer = sessionWith({ sampling: {} }, { inflight: [1, 8] });
  const incapable = sessionWith({}, { inflight: [9] });
  const choice = chooseSession([older, newer, incapable], sampling);
  t.is(choice?.session, newer);
  t.is(choice?.relatedRequestId, 80);
});

test('with nothing in flight, a capable session with a GET stream is asked; without one, nobody', (t) => {
  const deaf = sessionWith({ sampling: {} });
  const listening = sessionWith({ sampling: {} }, { listening: true });
  t.deepEqual(chooseSession([deaf, listening], sampling), { session: listening });
  t.is(chooseSession([deaf], sampling), undefined);
});

test('a child server gets the env it is given, not the gateway’s own', async (t) => {
  process.env.GATEWAY_TEST_ONLY_SECRET = 'not-for-the-child';
  t.teardown(() => delete process.env.GATEWAY_TEST_ONLY_SECRET);
  const source = everythingSource({ env: { GIVEN_TO_SERVER: 'yes' } });
  const gateway = await startGateway({ source, port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  const { client } = await connect(gateway.url, 'env-reader');
  const result = await client.callTool({ name: 'get-env', arguments: {} });
  const [content] = result.content as Array<{ text: string }>;
  const env = JSON.parse(content?.text ?? '{}') as Record<string, string>;
  t.is(env.GIVEN_TO_SERVER, 'yes');
  t.is(env.GATEWAY_TEST_ONLY_SECRET, undefined);
  t.truthy(env.PATH);
  await client.close();
});
