// The Helm chart, tested rather than only written: helm (built from its Go module like the other
// servers) lints it strictly, renders it with presets and with an existing presets Secret (checked
// object by object), and installs, upgrades and uninstalls it on the kwok cluster's real
// kube-apiserver. KWOK STANDS IN FOR THE KUBELET: the pods are scheduled and marked Ready but no
// container runs, so what is shown is what the API server accepts and keeps, not the service
// running in the pods (the production-split test runs the same entry points as processes).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { AppsV1Api, CoreV1Api, loadAllYaml, type V1Container, type V1Deployment, type V1Secret } from '@kubernetes/client-node';
import { createLogger } from '../../core/logger';
import { createKubeCluster, type KubeCluster } from '../../stack/servers/kube-cluster';
import { resolveBinary } from '../../stack/toolchain/binaries';
import { adminConfig, eventually } from '../workloads/support/kube';

const exec = promisify(execFile);
const CHART = fileURLToPath(new URL('../../deploy/helm/connector-registry', import.meta.url));
const log = createLogger('test-helm', process.env.LOG_LEVEL ?? 'error');
const PRESETS = [
  { url: 'https://mcp.example.com/mcp', client_id: 'registry', client_secret: 'preset-client-secret-4f1c', metadata: { name: 'Example' } },
  { url: 'mcp+stdio://everything', metadata: { name: 'Everything' }, stdio: { image: 'everything:1', env: { API_KEY: 'preset-env-value-9d2e' }, access_token_env_name: 'TOKEN' } },
];
const REQUIRED = ['--set', 'baseUrl=https://connectors.example.com', '--set', 'temporal.address=temporal-frontend:7233', '--set', 'mongodb.uri=mongodb://mongo:27017'];

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
async function render(values: unknown): Promise<K8sObject[]> {
  const file = await valuesFile(`render-${++renders}`, values);
  const { stdout } = await runHelm(['template', 'reg', CHART, '--namespace', 'registry', '--kube-version', '1.36.1', ...REQUIRED, '-f', file]);
  return (loadAllYaml(stdout) as (K8sObject | null)[]).filter((o): o is K8sObject => o !== null);
}

const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const containersOf = (d: K8sObject) => ((d as unknown as V1Deployment).spec!.template.spec!.containers);
const envOf = (c: V1Container, name: string) => c.env?.find((e) => e.name === name);

test('helm lint --strict passes with the required values, and a missing or wrong value fails naming it', async (t) => {
  const { stdout } = await runHelm(['lint', '--strict', CHART, ...REQUIRED, '-f', await valuesFile('lint', { connector: { presets: PRESETS } })]);
  t.regex(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  const missing = await t.throwsAsync(runHelm(['lint', '--strict', CHART]));
  const said = `${(missing as { stdout?: string }).stdout}`;
  t.regex(said, /\/baseUrl/);
  t.regex(said, /\/temporal\/address/);
  const wrong = await t.throwsAsync(runHelm(['template', 'x', CHART, '--kube-version', '1.36.1', ...REQUIRED, '--set-json', 'connector.presets=[{"url":"ftp://nope"}]']));
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
    t.deepEqual(container!.command, ['node', `dist/${role}.mjs`]);
    for (const name of ['CONNECTOR__PRESETS', 'CONNECTOR__ENCRYPTION_KEY', 'MONGODB_URI']) {
      const env = envOf(container!, name);
      t.truthy(env?.valueFrom?.secretKeyRef, `${role}: ${name} comes from a Secret`);
      t.is(env?.value, undefined);
    }
    t.is(envOf(container!, 'CONNECTOR__PRESETS')?.valueFrom?.secretKeyRef?.name, 'reg-connector-registry-presets');
    t.like(container!.securityContext, { runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } });
    t.like(container!.readinessProbe, { httpGet: { path: '/readyz' } });
    t.is(envOf(container!, 'METRICS_PORT')?.value, '9090', 'metrics on a port of their own');
    t.true(container!.ports!.some((p) => p.name === 'metrics' && p.containerPort === 9090));
    t.like(container!.livenessProbe, { httpGet: { path: '/healthz' } });
    t.truthy(deployment.spec && (deployment as unknown as V1Deployment).spec!.template.metadata!.annotations!['checksum/presets']);
  }
  const role = byKind(objects, 'Role')[0] as unknown as { rules: { resources: string[]; verbs: string[] }[] };
  const secretRules = role.rules.filter((r) => r.resources.includes('secrets'));
  t.true(secretRules.every((r) => !r.verbs.includes('list') && !r.verbs.includes('watch')), 'the worker may not list or watch Secrets');
});

test('rendered with an existing presets Secret: no presets Secret of its own, every pod reads the named one', async (t) => {
  const objects = await render({ connector: { presets: PRESETS, existingPresetsSecret: 'filled-by-vault' } });
  t.false(byKind(objects, 'Secret').some((s) => s.metadata.name.endsWith('-presets')));
  for (const deployment of byKind(objects, 'Deployment')) {
    t.is(envOf(containersOf(deployment)[0]!, 'CONNECTOR__PRESETS')?.valueFrom?.secretKeyRef?.name, 'filled-by-vault');
  }
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
