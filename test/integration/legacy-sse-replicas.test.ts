// A legacy HTTP+SSE server's connector as the chart runs the service: two proxy processes
// (dist/proxy.mjs) behind a balancer that sends each request to the next on a fresh connection,
// the API and the worker as processes of their own. An SDK v1 client's session works whichever
// proxy each request reaches (each opens an upstream stream of its own), and goes on after one
// proxy is restarted; an SDK v2 client works the same; the server sees the connector's token only.
import test from 'ava';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { sha256Hex } from '../../callers/api-keys';
import { startLegacySseMcpServer } from '../fixtures/legacy-sse-mcp-server';
import { startBalancer } from '../helpers/round-robin-balancer';
import { startSplitProcesses } from '../helpers/split-processes';
import { portOf } from '../helpers/stack-process';

const KEY = 'legacy-sse-replicas-key-5d2e';
const as = { authorization: `Bearer ${KEY}` };
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;

test('an SSE server\'s connector is served by either proxy, and after a restart of one', async (t) => {
  t.timeout(8 * 60_000);
  const upstream = await startLegacySseMcpServer({ token: 'sse-replicas-token' });
  t.teardown(() => upstream.close());
  // Bound before the processes start, since BASE_URL names it; the proxies join its pool once up.
  const front = await startBalancer({ api: [], proxy: [] });
  t.teardown(() => front.close());
  const { start } = await startSplitProcesses(t, {
    BASE_URL: front.url,
    CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'alice', sha256: sha256Hex(KEY) }]),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8', CONNECTOR__RATE_LIMIT_PER_OWNER: 'off', CONNECTOR__CONNECT_TIMEOUT_MS: '30000',
  });
  await start('dist/worker.mjs', 'worker');
  const api = await start('dist/api.mjs', 'api');
  const proxies = [await start('dist/proxy.mjs', 'proxy-1'), await start('dist/proxy.mjs', 'proxy-2')];
  const ports = front.pools.proxy;
  ports.push(...proxies.map(portOf));
  const served = () => ports.map((port) => front.served.get(port) ?? 0);

  const created = await api.api('POST', '/api/v1/connectors', { url: upstream.url, transport: 'sse', metadata: { name: 'legacy' } }, as);
  t.is(created.status, 201, created.text);
  const connect = await api.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: 'sse-replicas-token' }, as);
  t.like(connect.body, { state: 'connected', transport: 'sse' });

  const client = new ClientV1({ name: 'sse-replicas-v1', version: '1' });
  await client.connect(new TransportV1(new URL(created.body.mcp_url), { requestInit: { headers: as } }));
  for (let i = 0; i < 6; i++) t.is(textOf(await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } })), `sse: call ${i}`);
  t.true(served().every((n) => n >= 4), `both proxies served the session (${served()})`);
  const streams = () => upstream.seen.filter((s) => s.method === 'GET').length;
  t.is(streams(), 3, 'the connect\'s probe, then one stream per proxy');

  await proxies[0]!.stop();
  // Replaced as a pod is: a new process on a port of its own, taking the old one's place in the pool.
  proxies[0] = await start('dist/proxy.mjs', 'proxy-1-again');
  ports[0] = portOf(proxies[0]);
  for (let i = 0; i < 4; i++) t.is(textOf(await client.callTool({ name: 'echo', arguments: { text: `after ${i}` } })), `sse: after ${i}`);
  t.is(streams(), 4, 'the restarted proxy opened a stream of its own');
  await client.close();

  const modern = new ClientV2({ name: 'sse-replicas-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await modern.connect(new TransportV2(new URL(created.body.mcp_url), { requestInit: { headers: as } }));
  for (let i = 0; i < 4; i++) t.is(textOf(await modern.callTool({ name: 'echo', arguments: { text: `v2 ${i}` } })), `sse: v2 ${i}`);
  await modern.close();
  for (const seen of upstream.seen) t.is(seen.authorization, 'Bearer sse-replicas-token', `${seen.method} ${seen.path}`);
});
