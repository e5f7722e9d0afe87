// A workload's NetworkPolicy as a pure manifest, and the settings it is built from. The MCP server
// in the pod is third-party code: before this policy it could reach every private address, and
// with them Temporal's frontend, MongoDB and the service's metrics. kube-runtime.test.ts shows a
// real kube-apiserver accepting the same manifest.
import test from 'ava';
import type { V1NetworkPolicyEgressRule } from '@kubernetes/client-node';
import { networkPolicyManifest } from '../../activities/workloads/kube-network-policy';
import { deploymentManifest, type ManifestContext } from '../../activities/workloads/kube-manifests';
import { DEFAULT_GATEWAY_IMAGE, loadConfig } from '../../config/config';
import { defaultWorkloadEgress, type WorkloadEgress } from '../../platform/workload-egress';

const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'mcp-x', uid: 'u-1' };
const context = (egress: WorkloadEgress = defaultWorkloadEgress()): ManifestContext => ({
  connectorId: '0b7c1f7e-8a4e-4d53-9d0e-3c2f0f6a1b2c', namespace: 'tools', gatewayImage: 'gateway:test', gatewayMaxSessions: 256,
  proxySelector: { app: 'proxy' }, proxyNamespaceSelector: { 'kubernetes.io/metadata.name': 'registry' }, egress,
});
const egressOf = (egress?: WorkloadEgress): V1NetworkPolicyEgressRule[] => networkPolicyManifest(context(egress), owner).spec!.egress!;
const exceptOf = (rules: V1NetworkPolicyEgressRule[], cidr: string) => rules[0]!.to!.find((p) => p.ipBlock?.cidr === cidr)!.ipBlock!.except;
const DNS_PORTS = [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }];

test('by default: the internet but no private, CGNAT, loopback, link-local or unique-local range; DNS to the kube-dns pods only', (t) => {
  const rules = egressOf();
  t.deepEqual(exceptOf(rules, '0.0.0.0/0'), ['127.0.0.0/8', '169.254.0.0/16', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10']);
  t.deepEqual(exceptOf(rules, '::/0'), ['::1/128', 'fe80::/10', 'fc00::/7']);
  t.is(rules.length, 2, 'no allowed network, no API server address: no rule for either');
  t.deepEqual(rules[1], {
    to: [
      { podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } }, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } },
      { ipBlock: { cidr: '169.254.20.10/32' } },
    ],
    ports: DNS_PORTS,
  });
  t.true(rules.every((r) => r.to?.length), 'every rule names its peers: none admits any address on some port');
});

test('ingress: the proxy pods only, on the gateway port', (t) => {
  const spec = networkPolicyManifest(context(), owner).spec!;
  t.deepEqual(spec.policyTypes, ['Ingress', 'Egress']);
  t.deepEqual(spec.ingress, [{
    _from: [{ podSelector: { matchLabels: { app: 'proxy' } }, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'registry' } } }],
    ports: [{ protocol: 'TCP', port: 8080 }],
  }]);
});

test('configured cluster CIDRs are refused too; allowed networks are a rule of their own that never opens a metadata address', (t) => {
  const { egress } = loadConfig({
    CONNECTOR__KUBE_CLUSTER_CIDRS: '203.0.113.0/24, 10.96.0.0/12, 2001:db8:42::/56',
    CONNECTOR__KUBE_WORKLOAD_ALLOWED_NETWORKS: '10.20.0.0/16,100.64.0.0/10',
    CONNECTOR__KUBE_DNS_SELECTOR: 'k8s-app=coredns',
    CONNECTOR__KUBE_DNS_NAMESPACE_SELECTOR: 'kubernetes.io/metadata.name=dns',
    CONNECTOR__KUBE_DNS_CIDRS: '10.96.0.10',
    CONNECTOR__KUBE_API_SERVER_CIDRS: '172.18.0.2,10.0.0.0/28',
    CONNECTOR__KUBE_API_SERVER_PORTS: '6443',
  }).stdio.kube;
  const rules = egressOf(egress);
  const v4 = exceptOf(rules, '0.0.0.0/0')!;
  t.true(v4.includes('203.0.113.0/24'));
  t.false(v4.includes('10.96.0.0/12'), 'a cluster CIDR inside 10/8 adds nothing');
  t.true(exceptOf(rules, '::/0')!.includes('2001:db8:42::/56'));
  t.deepEqual(rules[1], { to: [
    { ipBlock: { cidr: '10.20.0.0/16' } },
    { ipBlock: { cidr: '100.64.0.0/10', except: ['100.100.100.200/32'] } },
  ] });
  t.deepEqual(rules[2], {
    to: [
      { podSelector: { matchLabels: { 'k8s-app': 'coredns' } }, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'dns' } } },
      { ipBlock: { cidr: '10.96.0.10/32' } },
    ],
    ports: DNS_PORTS,
  });
  t.deepEqual(rules[3], {
    to: [{ ipBlock: { cidr: '172.18.0.2/32' } }, { ipBlock: { cidr: '10.0.0.0/28' } }],
    ports: [{ protocol: 'TCP', port: 6443 }],
  }, "the API server's endpoints, for the gateway's attach: on its port only (a control-plane node also serves the kubelet)");
});

test('settings a NetworkPolicy cannot state, or that would open a metadata address, stop the start naming the variable', (t) => {
  for (const [name, value] of <[string, string][]>[
    ['CONNECTOR__KUBE_WORKLOAD_ALLOWED_NETWORKS', '169.254.169.254/32'],
    ['CONNECTOR__KUBE_WORKLOAD_ALLOWED_NETWORKS', 'fd00:ec2::254'],
    ['CONNECTOR__KUBE_WORKLOAD_ALLOWED_NETWORKS', '0.0.0.0/0'],
    ['CONNECTOR__KUBE_CLUSTER_CIDRS', '::/0'],
    ['CONNECTOR__KUBE_CLUSTER_CIDRS', '10.1/16'],
    ['CONNECTOR__KUBE_DNS_CIDRS', 'kube-dns'],
    ['CONNECTOR__KUBE_DNS_SELECTOR', 'k8s-app'],
    ['CONNECTOR__KUBE_API_SERVER_CIDRS', '0.0.0.0/0'],
    ['CONNECTOR__KUBE_API_SERVER_PORTS', '0'],
    ['CONNECTOR__KUBE_API_SERVER_PORTS', 'https'],
  ]) {
    t.throws(() => loadConfig({ [name]: value }), { message: new RegExp(`^${name}: `) }, `${name}=${value}`);
  }
  t.deepEqual(loadConfig({}).stdio.kube.egress, defaultWorkloadEgress());
});

test('a workload started under another policy is replaced: the policy is part of the Deployment\'s template hash', (t) => {
  const hash = (egress?: WorkloadEgress) =>
    deploymentManifest(context(egress), { image: 'mcp/server:1' }, [], 'i').metadata!.annotations!['connector-registry/pod-spec-hash'];
  t.is(hash(), hash(defaultWorkloadEgress()));
  t.not(hash(), hash({ ...defaultWorkloadEgress(), allowedNetworks: ['10.20.0.0/16'] }));
});

test('the default gateway image is pinned to this release, not a moving tag', (t) => {
  t.is(loadConfig({}).stdio.kube.gatewayImage, DEFAULT_GATEWAY_IMAGE);
  t.notRegex(DEFAULT_GATEWAY_IMAGE, /:latest$/);
  t.regex(DEFAULT_GATEWAY_IMAGE, /:\d+\.\d+\.\d+$/);
});
