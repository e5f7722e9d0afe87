// One connector cannot take every upstream socket of an origin that other connectors share:
// past its share of the pool it gets 429, while another connector on the same origin still goes through.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import type { Route, RouteSource } from '../../proxy/route';
import { startProxy } from './proxy-harness';
import { mcpErrorOf } from './mcp-answers';
import { RPC_ERROR } from '../../proxy/problem-response';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';

test('past its share of the pool a connector gets 429; another on the same origin still reaches it', async (t) => {
  let seen = 0;
  const held: http.ServerResponse[] = [];
  const upstream = http.createServer((_req, res) => {
    seen += 1;
    held.push(res); // answers nothing: every request stays open
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
  const routes: RouteSource = { get: async (): Promise<Route> => ({ kind: 'connected', target }) };
  const proxy = await startProxy(routes, { pool: { maxSockets: 8, maxSocketsPerConnector: 2 } });
  const controller = new AbortController();
  t.teardown(async () => {
    controller.abort();
    for (const res of held) res.destroy();
    upstream.closeAllConnections();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
    await proxy.close();
  });
  const post = (id: string, signal?: AbortSignal) => fetch(proxy.mcpUrl(id), {
    method: 'POST', signal, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  });
  const pending = [post(A, controller.signal), post(A, controller.signal)].map((p) => p.catch(() => undefined));
  while (seen < 2) await pause(20);
  const third = await post(A);
  t.is(third.status, 429);
  const busy = await mcpErrorOf(third);
  t.is(busy.problem.type, 'https://connector-registry.dev/problems/connector-busy');
  t.is(busy.rpc?.code, RPC_ERROR.refused);
  void post(B, controller.signal).catch(() => undefined);
  while (seen < 3) await pause(20);
  t.is(seen, 3, "another connector's request reached the same origin");
  controller.abort();
  await Promise.all(pending);
  // Once A's requests end, its share is free again. The proxy learns of the ends a moment later,
  // however long a loaded machine makes that: until then A is still refused, so ask again.
  for (const res of held) res.destroy();
  const later = new AbortController();
  t.teardown(() => later.abort());
  let refusals = 0;
  while (seen < 4 && refusals < 100) {
    let status: number | undefined;
    void post(A, later.signal).then((r) => { status = r.status; }, () => undefined);
    while (seen < 4 && status === undefined) await pause(20);
    if (status === undefined) break;
    t.is(status, 429, 'refused while the share is still taken, never anything else');
    refusals += 1;
    await pause(50);
  }
  t.is(seen, 4, `A reached the origin again (after ${refusals} refusals)`);
});
