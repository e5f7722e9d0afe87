// A managed route (the workload the service started for an mcp+stdio connector) is relayed by
// its route, not exempted by its address: with private networks blocked, the same loopback
// target is served when the route says managed and refused, with nothing sent, when it does not.
import test from 'ava';
import { staticRoutes } from '../../proxy/static-routes';
import { startTokenMcpServer } from '../fixtures/token-mcp-server';
import { connectClient, startProxy } from './proxy-harness';
import { mcpErrorOf } from './mcp-answers';

test('with private networks blocked, a managed loopback target serves tools and an unmanaged one is refused unsent', async (t) => {
  const upstream = await startTokenMcpServer({ token: 'workload-token' });
  const proxy = await startProxy(staticRoutes({
    managed: { kind: 'connected', target: upstream.url, token: 'workload-token', managed: true },
    unmanaged: { kind: 'connected', target: upstream.url, token: 'workload-token' },
  }), { policy: { blockPrivateNetworks: true } });
  t.teardown(async () => {
    await proxy.close();
    await upstream.close();
  });

  const { client } = await connectClient(proxy.mcpUrl('managed'));
  t.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['echo']);
  await client.close();
  t.true(upstream.seenAuthorization.every((h) => h === 'Bearer workload-token'));

  const seen = upstream.seenAuthorization.length;
  const refused = await fetch(proxy.mcpUrl('unmanaged'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  t.is(refused.status, 502);
  t.regex((await mcpErrorOf(refused)).problem.detail ?? '', /address policy/);
  t.is(upstream.seenAuthorization.length, seen, 'nothing reached the server');
});
