// Changes reach every proxy process through the change feed, not after their route cache's TTL:
// two proxy processes whose routes would live a minute (CONNECTOR__ROUTE_CACHE_TTL_MS=60000) both
// stop relaying a connector the API disconnected, and both carry the new token of its next
// connect, long before that minute is out. Run from dist/, with a worker, an API and two proxies
// as processes of their own.
import test from 'ava';
import { eventually } from '../helpers/test-stack';
import { startSplitProcesses } from '../helpers/split-processes';
import { startTokenMcpServer } from '../fixtures/token-mcp-server';
import type { StackProcess } from '../helpers/stack-process';

const OLD_TOKEN = 'feed-token-old-5a1e';
const NEW_TOKEN = 'feed-token-new-9c3d';

async function statusOf(proxy: StackProcess, connectorId: string): Promise<number> {
  const response = await fetch(`${proxy.baseUrl}/api/v1/connectors/${connectorId}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  await response.arrayBuffer();
  return response.status;
}

test('a disconnect and the token of the next connect reach both proxy processes through the feed, well within their route TTL', async (t) => {
  const upstream = await startTokenMcpServer({ token: OLD_TOKEN });
  t.teardown(() => upstream.close());
  const { start, proxyPort } = await startSplitProcesses(t, { CONNECTOR__ROUTE_CACHE_TTL_MS: '60000' });
  await start('dist/worker.mjs', 'worker');
  const api = await start('dist/api.mjs', 'api');
  const proxies = [await start('dist/proxy.mjs', 'proxy-1', { PORT: String(proxyPort) }), await start('dist/proxy.mjs', 'proxy-2')];

  const { body: connector } = await api.api('POST', '/api/v1/connectors', { url: upstream.url });
  t.is((await api.api('POST', `/api/v1/connectors/${connector.id}/connect`, { access_token: OLD_TOKEN })).body.state, 'connected');
  for (const proxy of proxies) t.is(await statusOf(proxy, connector.id), 200, 'each proxy holds the route');

  t.is((await api.api('POST', `/api/v1/connectors/${connector.id}/disconnect`)).status, 200);
  const disconnectedAt = performance.now();
  const seen = await Promise.all(proxies.map((proxy) => eventually(async () => (
    (await statusOf(proxy, connector.id)) === 409 ? performance.now() - disconnectedAt : undefined
  ), 20_000, 'the proxy to see the disconnect')));
  t.log(`disconnect seen by the two proxies after ${seen.map((ms) => `${Math.round(ms)} ms`).join(' and ')} (route TTL 60 s)`);

  upstream.setToken(NEW_TOKEN);
  t.is((await api.api('POST', `/api/v1/connectors/${connector.id}/connect`, { access_token: NEW_TOKEN })).body.state, 'connected');
  for (const proxy of proxies) {
    const before = upstream.seenAuthorization.length;
    t.is(await eventually(async () => ((await statusOf(proxy, connector.id)) === 200 ? 200 : undefined), 20_000, 'the proxy to relay again'), 200);
    t.deepEqual(upstream.seenAuthorization.slice(before).at(-1), `Bearer ${NEW_TOKEN}`);
  }
});
