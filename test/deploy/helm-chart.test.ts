// The Helm chart, tested rather than only written: helm (built from its Go module like the other
// servers) lints it strictly, renders it with presets and with an existing presets Secret (checked
// object by object), renders its NetworkPolicies and the workloads' namespace, refuses the renders
// that would be unsafe (the workloads in the release namespace, a generated key without a cluster
// to read it back from), and installs, upgrades and uninstalls it on the kwok cluster's real
// kube-apiserver. KWOK STANDS IN FOR THE KUBELET: the pods are scheduled and marked Ready but no
// container runs, so what is shown is what the API server accepts and keeps, not the service
// running in the pods (the production-split test runs the same entry points as processes).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import {
  AppsV1Api, CoreV1Api, NetworkingV1Api, loadAllYaml, type V1Container, type V1Deployment, type V1Ingress, type V1Namespace, type V1NetworkPolicy, type V1Secret,
} from '@kubernetes/client-node';
import { INGRESS_PATHS_FILE, renderIngressPaths } from '../../api/ingress-paths';
import { operations } from '../../contract/operations';
import { DEFAULT_GATEWAY_IMAGE } from '../../config/config';
import { createLogger } from '../../platform/logger';
import { createKubeCluster, type KubeCluster } from '../../stack/servers/kube-cluster';
import { resolveBinary } from '../../stack/toolchain/binaries';
import { roleCommand, scriptNodeFlags } from '../../bench/start-flags';
import { adminConfig, eventually } from '../workloads/support/kube';

const exec = promisify(execFile);
const CHART = fileURLToPath(new URL('../../deploy/helm/connector-registry', import.meta.url));
const log = createLogger('test-helm', process.env.LOG_LEVEL ?? 'error');
const PRESETS = [
  { url: 'https://mcp.example.com/mcp', client_id: 'registry', client_secret: 'preset-client-secret-4f1c', metadata: { name: 'Example' } },
  { url: 'mcp+stdio://everything', metadata: { name: 'Everything' }, stdio: { image: 'everything:1', env: { API_KEY: 'preset-env-value-9d2e' }, access_token_env_name: 'TOKEN' } },
];
const TEMPORAL_PEERS = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'temporal' } }, podSelector: { matchLabels: { app: 'frontend' } } }];
const MONGODB_PEERS = [{ ipBlock: { cidr: '10.40.0.0/24' } }];
const API_SERVER_PEERS = [{ ipBlock: { cidr: '172.18.0.2/32' } }];
const SERVERS = ['--set', 'baseUrl=https://connectors.example.com', '--set', 'temporal.address=temporal-frontend:7233', '--set', 'mongodb.uri=mongodb://mongo:27017'];
/** With the NetworkPolicies on (the default) the pods reach Temporal, MongoDB and the API server only where named. */
const REQUIRED = [
  ...SERVERS,
  '--set-json', `networkPolicy.temporal.to=${JSON.stringify(TEMPORAL_PEERS)}`, '--set-json', `networkPolicy.mongodb.to=${JSON.stringify(MONGODB_PEERS)}`,
  '--set-json', `networkPolicy.kubeApiServer.to=${JSON.stringify(API_SERVER_PEERS)}`,
];
/** helm template and lint have no cluster to read a generated key back from: they need the key's Secret named. */
const RENDERED = [...REQUIRED, '--set', 'encryption.existingSecret=registry-key'];

type K8sObject = { kind: string; metadata: { name: string; namespace?: string; annotations?: Record<string, string> } } & Record<string, unknown>;
let helm: string;
let scratch: string;
let cluster: KubeCluster | undefined;

test.before(async () => {
  helm = await resolveBinary('helm', { log });
  scratch = await mkdtemp(join(tmpdir(), 'helm-chart-'));
});

test.after.always(async () => {
  await cluster?.delete();
  await rm(scratch, { recursive: true, force: true });
});

const runHelm = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  exec(helm, args, { env: { ...process.env, HELM_CACHE_HOME: join(scratch, 'cache'), HELM_CONFIG_HOME: join(scratch, 'config'), HELM_DATA_HOME: join(scratch, 'data'), ...env }, maxBuffer: 16 * 1024 * 1024 });

async function valuesFile(name: string, values: unknown): Promise<string> {
  const path = join(scratch, `${name}.json`);
  await writeFile(path, JSON.stringify(values));
  return path;
}

let renders = 0;
async function render(values: unknown, required = RENDERED): Promise<K8sObject[]> {
  const file = await valuesFile(`render-${++renders}`, values);
  const { stdout } = await runHelm(['template', 'reg', CHART, '--namespace', 'registry', '--kube-version', '1.36.1', ...required, '-f', file]);
  return (loadAllYaml(stdout) as (K8sObject | null)[]).filter((o): o is K8sObject => o !== null);
}

/** What helm says when it refuses to render. */
async function renderError(values: unknown, required = RENDERED): Promise<string> {
  const refused = await render(values, required).then(() => null, (err: { stderr?: string }) => `${err.stderr}`);
  if (refused === null) throw new Error('helm rendered the chart');
  return refused;
}

const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const containersOf = (d: K8sObject) => ((d as unknown as V1Deployment).spec!.template.spec!.containers);
const envOf = (c: V1Container, name: string) => c.env?.find((e) => e.name === name);

test('helm lint --strict passes with the required values, and a missing or wrong value fails naming it', async (t) => {
  const { stdout } = await runHelm(['lint', '--strict', CHART, ...RENDERED, '-f', await valuesFile('lint', { connector: { presets: PRESETS } })]);
  t.regex(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  const missing = await t.throwsAsync(runHelm(['lint', '--strict', CHART]));
  const said = `${(missing as { stdout?: string }).stdout}`;
  t.regex(said, /\/baseUrl/);
  t.regex(said, /\/temporal\/address/);
  const wrong = await t.throwsAsync(runHelm(['template', 'x', CHART, '--kube-version', '1.36.1', ...RENDERED, '--set-json', 'connector.presets=[{"url":"ftp://nope"}]']));
  t.regex(`${(wrong as { stderr?: string }).stderr}`, /connector\/presets\/0\/url/);
});

test('rendered with presets: the presets reach every pod through a Secret, never as plain values, and the pods are hardened', async (t) => {
  const objects = await render({ connector: { presets: PRESETS } });
  t.deepEqual(byKind(objects, 'Deployment').map((d) => d.metadata.name).sort(), ['reg-connector-registry-api', 'reg-connector-registry-proxy', 'reg-connector-registry-worker']);
  t.deepEqual(byKind(objects, 'Service').map((s) => s.metadata.name).sort(), ['reg-connector-registry-api', 'reg-connector-registry-proxy']);
  t.is(byKind(objects, 'PodDisruptionBudget').length, 3);
  const presetsSecret = byKind(objects, 'Secret').find((s) => s.metadata.name === 'reg-connector-registry-presets') as unknown as V1Secret;
  t.deepEqual(JSON.parse(presetsSecret.stringData!.presets!), PRESETS, 'the presets that reach the pods equal the values');
  const rendered = JSON.stringify(byKind(objects, 'Deployment'));
  for (const secret of ['preset-client-secret-4f1c', 'preset-env-value-9d2e', 'mongodb://mongo:27017']) t.false(rendered.includes(secret), `${secret} is not in a Deployment`);
  for (const deployment of byKind(objects, 'Deployment')) {
    const [container] = containersOf(deployment);
    const role = deployment.metadata.name.replace('reg-connector-registry-', '');
    // The proxy role runs with `npm run proxy`'s node flags (its young generation: docs/scale.md).
    t.deepEqual(container!.command, roleCommand(role as 'api' | 'proxy' | 'worker'), role);
    for (const name of ['CONNECTOR__PRESETS', 'CONNECTOR__ENCRYPTION_KEY', 'MONGODB_URI']) {
      const env = envOf(container!, name);
      t.truthy(env?.valueFrom?.secretKeyRef, `${role}: ${name} comes from a Secret`);
      t.is(env?.value, undefined);
    }
    t.is(envOf(container!, 'CONNECTOR__PRESETS')?.valueFrom?.secretKeyRef?.name, 'reg-connector-registry-presets');
    t.like(container!.securityContext, { runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } });
    t.like(container!.readinessProbe, { httpGet: { path: '/readyz' } });
    t.is(envOf(container!, 'CONNECTOR__METRICS_PORT')?.value, '9090', 'metrics on a port of their own');
    t.true(container!.ports!.some((p) => p.name === 'metrics' && p.containerPort === 9090));
    t.like(container!.livenessProbe, { httpGet: { path: '/healthz' } });
    t.truthy(deployment.spec && (deployment as unknown as V1Deployment).spec!.template.metadata!.annotations!['checksum/presets']);
  }
  const role = byKind(objects, 'Role')[0] as unknown as { rules: { resources: string[]; verbs: string[] }[] };
  const secretRules = role.rules.filter((r) => r.resources.includes('secrets'));
  t.true(secretRules.every((r) => !r.verbs.includes('list') && !r.verbs.includes('watch')), 'the worker may not list or watch Secrets');
});

test("a role's node flags are values: the proxy's default replaced, another role given some, anything but a flag refused", async (t) => {
  t.true(scriptNodeFlags('proxy').length > 0, 'npm run proxy gives node flags, which the chart repeats');
  const commands = async (values: unknown) => Object.fromEntries(byKind(await render(values), 'Deployment')
    .map((d) => [d.metadata.name.replace('reg-connector-registry-', ''), containersOf(d)[0]!.command]));
  t.deepEqual(await commands({ proxy: { replicas: 2, nodeFlags: [] }, worker: { replicas: 2, nodeFlags: ['--max-old-space-size=512'] } }), {
    api: ['node', 'dist/api.mjs'], proxy: ['node', 'dist/proxy.mjs'], worker: ['node', '--max-old-space-size=512', 'dist/worker.mjs'],
  });
  t.regex(await renderError({ proxy: { replicas: 2, nodeFlags: ['dist/other.mjs'] } }), /proxy\/nodeFlags\/0/);
  t.regex(await renderError({ api: { replicas: 2, nodeFlags: ['--inspect=0.0.0.0:9229 --x'] } }), /api\/nodeFlags\/0/);
});

test('rendered with an existing presets Secret: no presets Secret of its own, every pod reads the named one', async (t) => {
  const objects = await render({ connector: { presets: PRESETS, existingPresetsSecret: 'filled-by-vault' } });
  t.false(byKind(objects, 'Secret').some((s) => s.metadata.name.endsWith('-presets')));
  for (const deployment of byKind(objects, 'Deployment')) {
    t.is(envOf(containersOf(deployment)[0]!, 'CONNECTOR__PRESETS')?.valueFrom?.secretKeyRef?.name, 'filled-by-vault');
  }
});

const REGISTRY_SERVERS = [
  { name: 'io.github.example/weather', version: '1.2.0' },
  { name: 'com.example/analytics', overlay: { client_id: 'registry-client', client_secret: 'registry-overlay-secret-6b3a' } },
];

test('registry and console settings reach every pod: the allow-list from a Secret (its overlays carry client secrets), the rest as values', async (t) => {
  const objects = await render({
    callers: { issuer: 'https://id.example.com' },
    registry: { url: 'https://registry.example.com', servers: REGISTRY_SERVERS, syncMinutes: 30 },
    console: { clientId: 'connector-console', scope: 'openid connectors' },
  });
  const config = byKind(objects, 'Secret').find((s) => s.metadata.name === 'reg-connector-registry-config') as unknown as V1Secret;
  t.deepEqual(JSON.parse(config.stringData!['registry-servers']!), REGISTRY_SERVERS, 'the allow-list that reaches the pods equals the values');
  t.false(JSON.stringify(byKind(objects, 'Deployment')).includes('registry-overlay-secret-6b3a'), 'no overlay secret in a Deployment');
  for (const deployment of byKind(objects, 'Deployment')) {
    const container = containersOf(deployment)[0]!;
    t.is(envOf(container, 'CONNECTOR__REGISTRY_URL')?.value, 'https://registry.example.com');
    t.deepEqual(plain(envOf(container, 'CONNECTOR__REGISTRY_SERVERS')?.valueFrom?.secretKeyRef), { name: 'reg-connector-registry-config', key: 'registry-servers' });
    t.is(envOf(container, 'CONNECTOR__REGISTRY_SERVERS')?.value, undefined);
    t.is(envOf(container, 'CONNECTOR__REGISTRY_SYNC_MINUTES')?.value, '30');
    t.is(envOf(container, 'CONNECTOR__CONSOLE_CLIENT_ID')?.value, 'connector-console');
    t.is(envOf(container, 'CONNECTOR__CONSOLE_SCOPE')?.value, 'openid connectors');
  }

  const external = await render({ registry: { url: 'https://registry.example.com', servers: REGISTRY_SERVERS, existingSecret: 'registry-from-vault' } });
  const ownConfig = byKind(external, 'Secret').find((s) => s.metadata.name === 'reg-connector-registry-config') as unknown as V1Secret;
  t.is(ownConfig.stringData?.['registry-servers'], undefined, 'the named Secret wins: the chart keeps no copy');
  const worker = containersOf(byKind(external, 'Deployment').find((d) => d.metadata.name.endsWith('-worker'))!)[0]!;
  t.is(envOf(worker, 'CONNECTOR__REGISTRY_SERVERS')?.valueFrom?.secretKeyRef?.name, 'registry-from-vault');
  t.is(envOf(worker, 'CONNECTOR__REGISTRY_SYNC_MINUTES')?.value, '60', 'the default period');
  t.is(envOf(worker, 'CONNECTOR__CONSOLE_CLIENT_ID'), undefined, 'no console client: API keys only');

  const none = containersOf(byKind(await render({}), 'Deployment')[0]!)[0]!;
  t.false(none.env!.some((e) => e.name.startsWith('CONNECTOR__REGISTRY_')), 'no registry url: no sync settings');
  t.regex(await renderError({ registry: { url: 'https://registry.example.com' } }), /registry\.url is set but no server is allowed/);
  t.regex(await renderError({ console: { clientId: 'connector-console' } }), /console\.clientId needs callers\.issuer/);
});

const PRIVATE_V4 = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16'];
const PRIVATE_V6 = ['fc00::/7', 'fe80::/10', '::1/128'];
/** A plain JSON copy: the client's model classes compare unequal to object literals (and name `from` `_from`). */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value ?? null)) as T;
const policyNamed = (objects: K8sObject[], name: string) =>
  plain(byKind(objects, 'NetworkPolicy').find((p) => p.metadata.name === name) as unknown as V1NetworkPolicy & K8sObject);
/** The peers of the egress rule whose ports include the given one. */
const egressTo = (policy: V1NetworkPolicy, port: number) =>
  policy.spec!.egress!.filter((r) => r.ports?.some((p) => p.port === port)).flatMap((r) => r.to ?? []);
const internetRule = (policy: V1NetworkPolicy) => policy.spec!.egress!.find((r) => !r.ports && r.to?.some((p) => p.ipBlock?.cidr === '0.0.0.0/0'));

test('workload identity: the worker alone gets a projected service-account token for the audience; every pod is told where it is', async (t) => {
  for (const deployment of byKind(await render({}), 'Deployment')) {
    t.is(envOf(containersOf(deployment)[0]!, 'CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE'), undefined, 'none without an audience');
  }
  const objects = await render({ connector: { workloadIdentity: { audience: 'https://as.example.com' } } });
  const dir = '/var/run/secrets/connector-registry/workload-identity';
  for (const deployment of byKind(objects, 'Deployment')) {
    const role = deployment.metadata.name.replace('reg-connector-registry-', '');
    const pod = (deployment as unknown as V1Deployment).spec!.template.spec!;
    const [container] = pod.containers;
    t.is(envOf(container!, 'CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE')?.value, `${dir}/token`, role);
    const volume = pod.volumes?.find((v) => v.name === 'workload-identity');
    const mounted = container!.volumeMounts?.some((m) => m.name === 'workload-identity' && m.mountPath === dir && m.readOnly);
    if (role === 'worker') {
      t.deepEqual(JSON.parse(JSON.stringify(volume?.projected?.sources)), [{ serviceAccountToken: { audience: 'https://as.example.com', expirationSeconds: 3600, path: 'token' } }]);
      t.true(mounted);
    } else {
      t.is(volume, undefined, `${role} holds no token`);
      t.falsy(mounted);
    }
  }
});

test('the workloads get a namespace of their own, labelled for the restricted Pod Security Standard, and a default deny there', async (t) => {
  const objects = await render({});
  const [namespace] = byKind(objects, 'Namespace') as unknown as V1Namespace[];
  t.is(namespace!.metadata!.name, 'reg-workloads', 'default: <release>-workloads');
  for (const mode of ['enforce', 'audit', 'warn']) t.is(namespace!.metadata!.labels![`pod-security.kubernetes.io/${mode}`], 'restricted', mode);
  const deny = policyNamed(objects, 'reg-connector-registry-default-deny');
  t.is(deny.metadata.namespace, 'reg-workloads');
  t.deepEqual(deny.spec, { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }, 'no ingress or egress rule: all denied');
  const role = byKind(objects, 'Role')[0]!;
  t.is(role.metadata.namespace, 'reg-workloads', "the worker's rights are in the workloads' namespace only");
  const worker = byKind(objects, 'Deployment').find((d) => d.metadata.name.endsWith('-worker'))!;
  t.is(envOf(containersOf(worker)[0]!, 'CONNECTOR__KUBE_NAMESPACE')?.value, 'reg-workloads');

  const named = await render({ stdio: { namespace: 'mcp-servers', createNamespace: false } });
  t.is(byKind(named, 'Namespace').length, 0, 'createNamespace: false leaves it to the operator');
  t.is(policyNamed(named, 'reg-connector-registry-default-deny').metadata.namespace, 'mcp-servers');
});

test('the chart refuses to put the workloads in the release namespace', async (t) => {
  t.regex(await renderError({ stdio: { namespace: 'registry' } }), /stdio\.namespace is the release namespace \(registry\)/);
});

test("the service's pods: API and proxy reachable from the ingress controller only, metrics from the scraper's namespace only", async (t) => {
  const objects = await render({});
  t.deepEqual(byKind(objects, 'NetworkPolicy').map((p) => p.metadata.name).sort(), [
    'reg-connector-registry-api', 'reg-connector-registry-default-deny', 'reg-connector-registry-proxy', 'reg-connector-registry-worker',
  ]);
  const ingressController = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } }, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ingress-nginx' } } }];
  const scraper = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }];
  for (const role of ['api', 'proxy', 'worker']) {
    const policy = policyNamed(objects, `reg-connector-registry-${role}`);
    t.deepEqual(policy.spec!.podSelector, { matchLabels: { 'app.kubernetes.io/name': 'connector-registry', 'app.kubernetes.io/instance': 'reg', 'app.kubernetes.io/component': role } });
    t.deepEqual(policy.spec!.policyTypes, ['Ingress', 'Egress']);
    const expected = [
      ...(role === 'worker' ? [] : [{ _from: ingressController, ports: [{ protocol: 'TCP', port: 8080 }] }]),
      { _from: scraper, ports: [{ protocol: 'TCP', port: 9090 }] },
    ];
    t.deepEqual(policy.spec!.ingress, expected, `${role}: ingress`);
  }
  const custom = await render({ networkPolicy: { ingressFrom: [{ ipBlock: { cidr: '203.0.113.0/24' } }], metricsFrom: [] }, metrics: { port: 9090 } });
  t.deepEqual(policyNamed(custom, 'reg-connector-registry-proxy').spec!.ingress, [{ _from: [{ ipBlock: { cidr: '203.0.113.0/24' } }], ports: [{ protocol: 'TCP', port: 8080 }] }]);
  t.deepEqual(policyNamed(custom, 'reg-connector-registry-worker').spec!.ingress ?? [], [], 'no scraper named: nothing reaches the worker');
});

test("the service's pods reach Temporal, MongoDB, DNS, the workloads (proxy), the API server (worker) and the public internet, no other private address", async (t) => {
  const objects = await render({ networkPolicy: { clusterCidrs: ['203.0.113.0/24', 'fd12:3456::/48'] }, connector: { allowedPrivateNetworks: ['10.20.0.0/16', '10.30.0.7'] } });
  for (const role of ['api', 'proxy', 'worker']) {
    const policy = policyNamed(objects, `reg-connector-registry-${role}`);
    t.deepEqual(egressTo(policy, 7233), TEMPORAL_PEERS, `${role}: Temporal`);
    t.deepEqual(egressTo(policy, 27017), MONGODB_PEERS, `${role}: MongoDB`);
    t.deepEqual(egressTo(policy, 53), [
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } },
      { ipBlock: { cidr: '169.254.20.10/32' } },
    ], `${role}: DNS`);
    t.deepEqual(internetRule(policy)!.to, [
      { ipBlock: { cidr: '0.0.0.0/0', except: [...PRIVATE_V4, '203.0.113.0/24'] } },
      { ipBlock: { cidr: '::/0', except: [...PRIVATE_V6, 'fd12:3456::/48'] } },
    ], `${role}: every public address, no private range nor the cluster's`);
    t.true(policy.spec!.egress!.some((r) => JSON.stringify(r.to) === JSON.stringify([{ ipBlock: { cidr: '10.20.0.0/16' } }, { ipBlock: { cidr: '10.30.0.7/32' } }])),
      `${role}: connector.allowedPrivateNetworks, a bare address as one host`);
    t.is(policy.spec!.egress!.filter((r) => !r.to?.length).length, 0, `${role}: no rule without peers (that would admit every address)`);
    const gateways = egressTo(policy, 8080);
    t.deepEqual(gateways, role === 'proxy'
      ? [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'reg-workloads' } }, podSelector: { matchLabels: { 'app.kubernetes.io/managed-by': 'connector-registry' } } }]
      : [], `${role}: the workloads' gateways`);
    t.deepEqual(egressTo(policy, 6443), role === 'worker' ? API_SERVER_PEERS : [], `${role}: the Kubernetes API`);
  }
  const closed = await render({ networkPolicy: { internet: false } });
  t.is(internetRule(policyNamed(closed, 'reg-connector-registry-proxy')), undefined, 'internet: false');
  t.is(byKind(await render({ networkPolicy: { enabled: false } }), 'NetworkPolicy').length, 0, 'enabled: false');
});

test('a server the pods could not reach is refused at render naming the value', async (t) => {
  const required = [...SERVERS, '--set', 'encryption.existingSecret=registry-key'];
  const servers = { mongodb: { to: MONGODB_PEERS }, temporal: { to: TEMPORAL_PEERS } };
  t.regex(await renderError({ stdio: { enabled: false } }, required), /networkPolicy\.mongodb\.to is empty/);
  t.regex(await renderError({ stdio: { enabled: false }, networkPolicy: { mongodb: { to: MONGODB_PEERS } } }, required), /networkPolicy\.temporal\.to is empty/);
  t.is(byKind(await render({ networkPolicy: servers, stdio: { enabled: false } }, required), 'Deployment').length, 3,
    'without stdio workloads the API server is not needed');
  // Each workload's own policy admits the API server's endpoints (its gateway attaches through
  // them), whatever networkPolicy.enabled says of the chart's own policies.
  t.regex(await renderError({ networkPolicy: servers }, required), /networkPolicy\.kubeApiServer\.to names no ipBlock/);
  t.regex(await renderError({ networkPolicy: { enabled: false } }, required), /networkPolicy\.kubeApiServer\.to names no ipBlock/);
});

test("the worker tells each workload's policy the chart's network settings; the gateway image is pinned to the chart's appVersion", async (t) => {
  const objects = await render({
    stdio: { allowedNetworks: ['10.50.0.0/16'] }, networkPolicy: { clusterCidrs: ['203.0.113.0/24'], dns: { podSelector: { matchLabels: { 'k8s-app': 'coredns' } }, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'dns' } }, cidrs: ['10.96.0.10/32'] } },
  });
  const worker = containersOf(byKind(objects, 'Deployment').find((d) => d.metadata.name.endsWith('-worker'))!)[0]!;
  const env = (name: string) => envOf(worker, name)?.value;
  t.is(env('CONNECTOR__KUBE_WORKLOAD_ALLOWED_NETWORKS'), '10.50.0.0/16');
  t.is(env('CONNECTOR__KUBE_CLUSTER_CIDRS'), '203.0.113.0/24');
  t.is(env('CONNECTOR__KUBE_DNS_SELECTOR'), 'k8s-app=coredns');
  t.is(env('CONNECTOR__KUBE_DNS_NAMESPACE_SELECTOR'), 'kubernetes.io/metadata.name=dns');
  t.is(env('CONNECTOR__KUBE_DNS_CIDRS'), '10.96.0.10/32');
  t.is(env('CONNECTOR__KUBE_API_SERVER_CIDRS'), '172.18.0.2/32');
  t.is(env('CONNECTOR__KUBE_API_SERVER_PORTS'), '443,6443');

  const chart = await readFile(join(CHART, 'Chart.yaml'), 'utf8');
  const appVersion = /^appVersion:\s*"?([^"\s]+)"?/m.exec(chart)![1]!;
  const pkg = JSON.parse(await readFile(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version: string };
  t.is(appVersion, pkg.version, 'the chart ships this release');
  t.is(env('CONNECTOR__KUBE_GATEWAY_IMAGE'), `connector-registry-gateway:${appVersion}`);
  t.is(DEFAULT_GATEWAY_IMAGE, `connector-registry-gateway:${appVersion}`, "the service's own default is the same pinned image");
  const digest = `sha256:${'a'.repeat(64)}`;
  const pinned = await render({ stdio: { gatewayImage: { repository: 'registry.example/gw', digest } } });
  const pinnedWorker = containersOf(byKind(pinned, 'Deployment').find((d) => d.metadata.name.endsWith('-worker'))!)[0]!;
  t.is(envOf(pinnedWorker, 'CONNECTOR__KUBE_GATEWAY_IMAGE')?.value, `registry.example/gw@${digest}`);
  t.regex(await renderError({ stdio: { gatewayImage: { repository: 'gw', tag: 'latest' } } }), /stdio\/gatewayImage\/tag/);
  t.regex(await renderError({ image: { repository: 'svc', tag: 'latest' } }), /image\/tag/);
});

/**
 * Where ingress-nginx sends `path` under this Ingress: with use-regex every rule's path is a
 * case-insensitive regular expression anchored at the start, and the longest path is tried first.
 */
function backendOf(ingress: V1Ingress, path: string): string | undefined {
  const rules = [...ingress.spec!.rules![0]!.http!.paths].sort((a, b) => b.path!.length - a.path!.length);
  return rules.find((rule) => new RegExp(`^${rule.path}`, 'i').test(path))?.backend.service?.name;
}

const EXAMPLE_PARAMETERS: Record<string, string> = { id: '0b7e3c1a-5d2f-4c6b-9a8e-1f2d3c4b5a69', file: 'app.js', name: 'io.github.example/weather' };

test("the Ingress sends every operation the declarations give to the proxy to the proxy Service, and every other to the API's", async (t) => {
  const objects = await render({ ingress: { enabled: true, host: 'connectors.example.com' } });
  const [ingress] = byKind(objects, 'Ingress') as unknown as V1Ingress[];
  t.is(ingress!.metadata!.annotations!['nginx.ingress.kubernetes.io/use-regex'], 'true', 'the paths are read as regular expressions');
  const proxied = operations().filter(([, op]) => op.servedBy === 'proxy');
  t.true(proxied.some(([, op]) => op.path.startsWith('/api/v1/toolsets/')), "the toolsets' MCP path is among them");
  for (const [id, op] of operations()) {
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(EXAMPLE_PARAMETERS[name]!));
    const expected = op.servedBy === 'proxy' ? 'reg-connector-registry-proxy' : 'reg-connector-registry-api';
    t.is(backendOf(ingress!, path), expected, `${id}: ${op.method.toUpperCase()} ${path}`);
    if (op.servedBy === 'proxy') t.is(backendOf(ingress!, `${path}/`), expected, `${id} with a trailing slash`);
  }
  t.is(backendOf(ingress!, `/api/v1/connectors/${EXAMPLE_PARAMETERS.id}/mcp/extra`), 'reg-connector-registry-api', 'nothing after the MCP path reaches the proxy');
});

test('the API and the proxy pause before SIGTERM (the endpoints catch up) and have time to drain after it', async (t) => {
  const objects = await render({});
  for (const deployment of byKind(objects, 'Deployment') as unknown as V1Deployment[]) {
    const role = deployment.metadata!.name!.replace('reg-connector-registry-', '');
    const pod = deployment.spec!.template.spec!;
    const preStop = pod.containers[0]!.lifecycle?.preStop;
    if (role === 'worker') {
      t.is(preStop, undefined, 'the worker takes no traffic from a Service');
      continue;
    }
    t.deepEqual(preStop?.exec?.command, ['sleep', '5'], role);
    // The pause (5 s) and the drain's longest grace (20 s, service/server-drain.ts) fit.
    t.true(pod.terminationGracePeriodSeconds! >= 5 + 20, `${role}: ${pod.terminationGracePeriodSeconds} s to stop`);
  }
});

test("the chart's generated proxy paths are the ones the declarations render (run `npm run docs:api`)", async (t) => {
  t.is(await readFile(join(CHART, '..', '..', '..', INGRESS_PATHS_FILE), 'utf8'), renderIngressPaths());
});

test('without a cluster to read it back from (helm template, GitOps renderers), the chart refuses to generate the encryption key', async (t) => {
  const refused = await renderError({}, REQUIRED);
  t.regex(refused, /encryption\.existingSecret is required when the chart is rendered without a cluster to read/);
  t.regex(refused, /a new one at every render/);
  const objects = await render({});
  t.false(byKind(objects, 'Secret').some((s) => s.metadata.name.endsWith('-key')), 'with existingSecret: no key Secret of its own');
  const api = containersOf(byKind(objects, 'Deployment')[0]!)[0]!;
  t.is(envOf(api, 'CONNECTOR__ENCRYPTION_KEY')?.valueFrom?.secretKeyRef?.name, 'registry-key');
});

test('installed on a real kube-apiserver: server-side dry run, install, an upgrade of the presets rolls the pods, uninstall', async (t) => {
  cluster = await createKubeCluster({ workDir: join(scratch, 'kwok'), name: 'helm-chart', log });
  const kubeconfig = cluster.kubeconfigPath;
  const admin = adminConfig(kubeconfig);
  const core = admin.makeApiClient(CoreV1Api);
  const apps = admin.makeApiClient(AppsV1Api);
  await core.createNamespace({ body: { metadata: { name: 'registry' } } });
  const base = ['--namespace', 'registry', '--kubeconfig', kubeconfig, ...REQUIRED];
  const first = await valuesFile('v1', { connector: { presets: PRESETS.slice(0, 1) } });

  await runHelm(['install', 'reg', CHART, ...base, '-f', first, '--dry-run=server']);
  t.is((await apps.listNamespacedDeployment({ namespace: 'registry' })).items.length, 0, 'a dry run creates nothing');

  await runHelm(['install', 'reg', CHART, ...base, '-f', first]);
  const names = (await apps.listNamespacedDeployment({ namespace: 'registry' })).items.map((d) => d.metadata!.name).sort();
  t.deepEqual(names, ['reg-connector-registry-api', 'reg-connector-registry-proxy', 'reg-connector-registry-worker']);
  const stored = await core.readNamespacedSecret({ name: 'reg-connector-registry-presets', namespace: 'registry' });
  t.deepEqual(JSON.parse(Buffer.from(stored.data!.presets!, 'base64').toString()), PRESETS.slice(0, 1));
  const key = (await core.readNamespacedSecret({ name: 'reg-connector-registry-key', namespace: 'registry' })).data!['encryption-key']!;
  t.is(Buffer.from(Buffer.from(key, 'base64').toString(), 'base64').length, 32, 'a generated 32-byte key');
  const workloads = await core.readNamespace({ name: 'reg-workloads' });
  t.is(workloads.metadata!.labels!['pod-security.kubernetes.io/enforce'], 'restricted', "the workloads' namespace, made and labelled by the chart");
  const networking = admin.makeApiClient(NetworkingV1Api);
  t.deepEqual((await networking.listNamespacedNetworkPolicy({ namespace: 'registry' })).items.map((p) => p.metadata!.name).sort(),
    ['reg-connector-registry-api', 'reg-connector-registry-proxy', 'reg-connector-registry-worker'], 'the API server accepted the policies');
  t.deepEqual((await networking.listNamespacedNetworkPolicy({ namespace: 'reg-workloads' })).items.map((p) => p.metadata!.name), ['reg-connector-registry-default-deny']);
  const ready = await eventually(async () => (await apps.readNamespacedDeployment({ name: 'reg-connector-registry-api', namespace: 'registry' })).status?.readyReplicas === 2, 60_000);
  t.true(ready, 'the api pods were scheduled and (kwok) marked ready');

  const before = await apps.readNamespacedDeployment({ name: 'reg-connector-registry-proxy', namespace: 'registry' });
  await runHelm(['upgrade', 'reg', CHART, ...base, '-f', await valuesFile('v2', { connector: { presets: PRESETS } })]);
  const after = await apps.readNamespacedDeployment({ name: 'reg-connector-registry-proxy', namespace: 'registry' });
  t.not(after.spec!.template.metadata!.annotations!['checksum/presets'], before.spec!.template.metadata!.annotations!['checksum/presets']);
  t.true(after.metadata!.generation! > before.metadata!.generation!, 'a new pod template: the pods roll');
  const keyAfter = (await core.readNamespacedSecret({ name: 'reg-connector-registry-key', namespace: 'registry' })).data!['encryption-key'];
  t.is(keyAfter, key, 'the upgrade kept the generated key');

  await runHelm(['uninstall', 'reg', '--namespace', 'registry', '--kubeconfig', kubeconfig, '--wait']);
  t.is((await apps.listNamespacedDeployment({ namespace: 'registry' })).items.length, 0);
  const left = (await core.listNamespacedSecret({ namespace: 'registry' })).items.map((s) => s.metadata!.name);
  t.deepEqual(left.filter((n) => n!.startsWith('reg-')), ['reg-connector-registry-key'], 'only the key is kept (resource-policy: keep)');
});
