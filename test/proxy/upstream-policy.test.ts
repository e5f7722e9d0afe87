// The proxy's decisions before anything is sent, over literal targets only (nothing is contacted).
import test from 'ava';
import type { AddressPolicy } from '../../core/address-guard';
import type { ConnectedRoute } from '../../proxy/route';
import { agentFor, createUpstreamAgents } from '../../proxy/upstream-agents';
import { TargetPolicy, targetRefusal } from '../../proxy/upstream-policy';
import { upstreamTarget } from '../../proxy/upstream-target';

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
  const pick = (url: string, r: Partial<ConnectedRoute>) => agentFor(agents, upstreamTarget(url, ''), route(url, r));
  t.is(pick('http://127.0.0.1:9/mcp', { managed: true, token: 't' }), agents.managed);
  t.is(pick('http://mcp.internal/mcp', { token: 't' }), agents.httpWithToken);
  t.is(pick('http://mcp.internal/mcp', {}), agents.http);
  t.is(pick('https://mcp.internal/mcp', { token: 't' }), agents.https);
});
