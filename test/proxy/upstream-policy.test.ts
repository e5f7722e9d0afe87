// The proxy's decisions before anything is sent, over literal targets only (nothing is contacted
// but one loopback server, to see an evicted pool close its idle socket).
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import test from 'ava';
import type { AddressPolicy } from '../../platform/address-guard';
import type { ConnectedRoute } from '../../proxy/route';
import { createUpstreamAgents } from '../../proxy/upstream-agents';
import { TargetPolicy, targetRefusal } from '../../proxy/upstream-policy';
import { upstreamTarget } from '../../proxy/upstream-target';
import { eventually } from '../helpers/test-stack';

const open: AddressPolicy = { blockPrivateNetworks: false };
const blocked: AddressPolicy = { blockPrivateNetworks: true, allowedPrivateNetworks: ['10.20.0.0/16'] };
const route = (target: string, extra: Partial<ConnectedRoute> = {}): ConnectedRoute => ({ kind: 'connected', target, ...extra });
const judge = (url: string, r: Partial<ConnectedRoute>, policy: AddressPolicy = open) => targetRefusal(upstreamTarget(url, ''), route(url, r), policy);

test('a token is never attached to a plain-http target it may not travel to', (t) => {
  for (const url of ['http://93.184.216.34/mcp', 'http://[2606:4700::1]/mcp', 'http://[64:ff9b::a00:1]/mcp']) {
    t.like(judge(url, { token: 't' }), { token: true }, url);
    t.is(judge(url, {}), null, `${url} without a token`);
    t.is(judge(url.replace('http:', 'https:'), { token: 't' }), null, `${url} over https`);
  }
  t.is(judge('http://127.0.0.1:9/mcp', { token: 't' }, { ...blocked, allowedPrivateNetworks: ['127.0.0.0/8'] }), null);
  t.is(judge('http://10.20.1.1/mcp', { token: 't' }, blocked), null, 'an allowed private network');
  t.is(judge('http://10.9.1.1/mcp', { token: 't' }, open), null, 'any private address while private networks are not blocked');
});

test('the address policy is judged first, and says so', (t) => {
  t.like(judge('http://169.254.169.254/latest', { token: 't' }), { token: false });
  t.like(judge('http://10.9.1.1/mcp', { token: 't' }, blocked), { token: false });
  t.regex(judge('http://10.9.1.1/mcp', {}, blocked)?.why ?? '', /CONNECTOR__BLOCK_PRIVATE_NETWORKS/);
});

test('a managed route (the service\'s own workload) is judged by neither rule, whatever its address', (t) => {
  for (const url of ['http://127.0.0.1:4000/mcp', 'http://10.9.1.1:8080/mcp']) {
    t.is(judge(url, { managed: true, token: 't' }, { blockPrivateNetworks: true }), null, url);
    t.truthy(judge(url, { token: 't' }, { blockPrivateNetworks: true }), `${url} when not managed`);
  }
});

test('verdicts are remembered per protocol, address and whether a token rides along', (t) => {
  const policy = new TargetPolicy(open);
  const url = 'http://93.184.216.34/mcp';
  t.is(policy.refusal(upstreamTarget(url, ''), route(url)), null);
  t.like(policy.refusal(upstreamTarget(url, ''), route(url, { token: 't' })), { token: true });
  t.is(policy.refusal(upstreamTarget(url, ''), route(url)), null);
});

test('each request goes through the pool that applies its rules', (t) => {
  const agents = createUpstreamAgents(open);
  t.teardown(() => agents.destroy());
  const pick = (url: string, r: Partial<ConnectedRoute>) => agents.agentFor(upstreamTarget(url, ''), route(url, r));
  const managed = pick('http://127.0.0.1:9/mcp', { managed: true, token: 't' });
  const withToken = pick('http://mcp.internal/mcp', { token: 't' });
  const plain = pick('http://mcp.internal/mcp', {});
  const tls = pick('https://mcp.internal/mcp', { token: 't' });
  t.deepEqual(agents.poolOf(null), { managed, httpWithToken: withToken, http: plain, https: tls });
  t.is(new Set([managed, withToken, plain, tls]).size, 4);
});

test('owners never share a pool: same origin, same kind, another owner, another agent', (t) => {
  const agents = createUpstreamAgents(open);
  t.teardown(() => agents.destroy());
  const url = 'http://mcp.internal/mcp';
  const pick = (owner: string | null) => agents.agentFor(upstreamTarget(url, ''), route(url, { owner, token: 't' }));
  const a = pick('team-a');
  t.is(pick('team-a'), a, 'one owner keeps its pool');
  t.not(pick('team-b'), a);
  t.not(pick(null), a, 'connectors without an owner have a pool of their own');
  t.not(pick(null), pick('team-b'));
});

test('past maxPools the owner unused the longest loses its pool; its idle socket closes', async (t) => {
  const server = http.createServer((_req, res) => res.end('ok'));
  server.keepAliveTimeout = 600_000; // neither side closes the idle socket on its own
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agents = createUpstreamAgents(open, { maxPools: 2, idleTimeoutMs: 600_000 });
  t.teardown(() => {
    agents.destroy();
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const pick = (owner: string) => agents.agentFor(upstreamTarget(url, ''), route(url, { owner }));
  // One request through the first owner's pool leaves its socket idle there.
  const first = pick('first');
  const socket = await new Promise<Socket>((resolve, reject) => {
    http.get(url, { agent: first }, (res) => {
      const used = res.socket as Socket; // detached once the answer is read
      res.resume();
      res.once('end', () => resolve(used));
    }).once('error', reject);
  });
  await eventually(async () => (Object.values(first.freeSockets).flat().length === 1 ? true : undefined), 10_000, 'the socket is idle in the pool');
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  pick('second');
  pick('first'); // the most recent again
  pick('third'); // one too many: 'second' goes, it was unused the longest
  t.is(agents.poolCount, 2);
  t.is(agents.poolOf('second'), undefined);
  t.is(pick('first'), first, 'the recent owner keeps its pool');
  pick('fourth'); // now 'third' goes, then 'first'
  pick('fifth');
  t.is(agents.poolOf('first'), undefined);
  await closed;
  t.pass('the evicted pool closed its idle socket');
});
