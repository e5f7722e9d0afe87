// The Kubernetes runtime against a real control plane: etcd, kube-apiserver,
// kube-controller-manager (its garbage collector included) and kube-scheduler, built from source
// and cached (createKubeCluster builds them when missing). KWOK STANDS IN FOR THE KUBELET: there
// is no container runtime here, so pods never run; kwok marks a scheduled pod Ready whatever its
// probes say. What is shown is the API side: the objects, readiness, timeout, removal, RBAC.
// The runtime acts as the worker's service account from deploy/rbac/worker.yaml, so every call
// it makes is one that Role allows, in the namespaces of deploy/rbac/namespaces.yaml (the
// workloads' one enforces the restricted Pod Security Standard, so every pod seen here met it).
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import {
  RbacAuthorizationV1Api, loadAllYaml, type KubeConfig, type V1Deployment, type V1Pod, type V1Role,
} from '@kubernetes/client-node';
import { readFile } from 'node:fs/promises';
import { DEFAULT_KUBE_PROXY_NAMESPACE_SELECTOR, DEFAULT_KUBE_PROXY_SELECTOR, parseLabelSelector } from '../../platform/kube-labels';
import { loadConfig } from '../../config/config';
import { createLogger } from '../../platform/logger';
import { defaultWorkloadEgress } from '../../platform/workload-egress';
import { networkPolicySpec } from '../../activities/workloads/kube-network-policy';
import { WorkloadSpecError, WorkloadTimeoutError } from '../../activities/workloads/errors';
import type { KubeApis } from '../../activities/workloads/kube-api';
import { KubeRuntime } from '../../activities/workloads/kube-runtime';
import { createWorkloadRuntime } from '../../activities/workloads/create-runtime';
import { deploymentManifest, ownerReference, secretManifest } from '../../activities/workloads/kube-manifests';
import type { WorkloadSpec } from '../../activities/workloads/runtime';
import { createKubeCluster, type KubeCluster } from '../../stack/servers/kube-cluster';
import { startReconciler } from '../../service/reconciler';
import {
  RBAC_DIR, adminConfig, apisOf, applyYamlFile, canI, cordonNodes, eventually, readOrUndefined, serviceAccountConfig,
} from './support/kube';

const log = createLogger('test-kube-workloads', process.env.LOG_LEVEL ?? 'error');
const namespace = 'connector-workloads';
const serviceNamespace = 'connector-registry';
const gatewayImage = 'registry.example/connector-registry-gateway:test';

let workDir: string;
let cluster: KubeCluster;
let admin: KubeConfig;
let adminApis: KubeApis;
let runtime: KubeRuntime;

test.before(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kube-workloads-'));
  cluster = await createKubeCluster({ workDir, name: 'workloads', log });
  admin = adminConfig(cluster.kubeconfigPath);
  adminApis = apisOf(admin);
  await applyYamlFile(admin, join(RBAC_DIR, 'namespaces.yaml'));
  await applyYamlFile(admin, join(RBAC_DIR, 'worker.yaml'));
  const worker = await serviceAccountConfig(admin, serviceNamespace, 'connector-registry-worker');
  runtime = new KubeRuntime({
    namespace, gatewayImage, logger: log, apis: apisOf(worker), readyPollMs: 100, watchPollMs: 200, reconcileGraceMs: 0,
  });
});

test.after.always(async () => {
  await cluster?.delete();
  await rm(workDir, { recursive: true, force: true });
});

const spec = (overrides: Partial<WorkloadSpec['stdio']> = {}, token: string | null = null): WorkloadSpec => ({
  connectorId: randomUUID(),
  stdio: { image: 'registry.example/mcp/github:1', ...overrides },
  token,
});

const readDeployment = (name: string) => readOrUndefined(() => adminApis.apps.readNamespacedDeployment({ name, namespace }));
const readService = (name: string) => readOrUndefined(() => adminApis.core.readNamespacedService({ name, namespace }));
const readSecret = (name: string) => readOrUndefined(() => adminApis.core.readNamespacedSecret({ name, namespace }));
const readServiceAccount = (name: string) => readOrUndefined(() => adminApis.core.readNamespacedServiceAccount({ name, namespace }));
const readRole = (name: string) => readOrUndefined(() => adminApis.rbac.readNamespacedRole({ name, namespace }));
const readRoleBinding = (name: string) => readOrUndefined(() => adminApis.rbac.readNamespacedRoleBinding({ name, namespace }));
const readNetworkPolicy = (name: string) => readOrUndefined(() => adminApis.networking.readNamespacedNetworkPolicy({ name, namespace }));

/** Every kind of object a workload has, read as admin. */
const readAll = (name: string) => Promise.all([
  readDeployment(name), readService(name), readSecret(name), readServiceAccount(name), readRole(name), readRoleBinding(name),
  readNetworkPolicy(name),
]);

async function nothingLeft(name: string): Promise<boolean> {
  return (await readAll(name)).every((object) => object === undefined);
}

async function podsOf(connectorId: string): Promise<V1Pod[]> {
  const labelSelector = `connector-registry/connector-id=${connectorId}`;
  return (await adminApis.core.listNamespacedPod({ namespace, labelSelector })).items;
}

/** A plain JSON copy: the client's model classes compare unequal to object literals, and hold undefined members. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));

const decode = (data: Record<string, string> | undefined) =>
  Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));

test.serial('start creates the Secret, Deployment and Service described, waits for the Ready pod, and is idempotent', async (t) => {
  const token = `tok-${randomUUID()}`;
  const apiKey = `key-${randomUUID()}`; // a connect's value for the preset's env_inputs
  const s = {
    ...spec({ command: ['mcp-server-github'], args: ['stdio'], env: { GITHUB_HOST: 'github.example' }, env_inputs: [{ name: 'ORG_API_KEY', secret: true, required: true }], access_token_env_name: 'GITHUB_TOKEN' }, token),
    inputs: { ORG_API_KEY: apiKey },
  };
  const name = `mcp-${s.connectorId}`;
  let heartbeats = 0;
  const began = performance.now();
  const { target, gatewaySecret } = await runtime.start(s, { readinessTimeoutMs: 60_000, heartbeat: () => heartbeats++ });
  const connectMs = performance.now() - began;
  t.log(`Kubernetes path (kwok): start → pod Ready in ${connectMs.toFixed(0)} ms`);
  t.is(target, `http://${name}.${namespace}.svc:8080/mcp`);
  t.true(heartbeats > 0, 'the wait heartbeats');
  t.true((await podsOf(s.connectorId)).some((pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')));

  const deployment = (await readDeployment(name))!;
  const labels = { 'app.kubernetes.io/managed-by': 'connector-registry', 'connector-registry/connector-id': s.connectorId };
  t.like(deployment.metadata?.labels, labels);
  t.is(deployment.spec?.replicas, 1);
  const pod = deployment.spec!.template.spec!;
  t.is(pod.serviceAccountName, name, "the workload's own service account");
  t.false(pod.automountServiceAccountToken, 'the MCP server container gets no API token');
  t.deepEqual(pod.containers.map((c) => c.name), ['mcp-server', 'gateway']);
  const [server, gateway] = pod.containers;
  t.like(server, { image: s.stdio.image, command: ['mcp-server-github'], args: ['stdio'], stdin: true });
  t.falsy(server!.tty, 'tty: false (the API server leaves the default out)');
  t.deepEqual(server!.env?.map((e) => [e.name, e.valueFrom?.secretKeyRef?.name ?? e.value, e.valueFrom?.secretKeyRef?.key]), [
    ['GITHUB_HOST', name, 'GITHUB_HOST'], ['ORG_API_KEY', name, 'ORG_API_KEY'], ['GITHUB_TOKEN', name, 'GITHUB_TOKEN'], ['HOME', '/tmp', undefined],
  ], 'the server container gets its env, and never the gateway secret');
  t.falsy(server!.envFrom, 'nor the whole Secret');
  t.is(gateway!.image, gatewayImage);
  t.deepEqual(gateway!.ports?.map((p) => p.containerPort), [8080]);
  t.like(gateway!.readinessProbe?.httpGet, { path: '/healthz', port: 8080 });
  const gatewayEnv = Object.fromEntries(gateway!.env!.map((e) => [e.name, e.value ?? e.valueFrom?.fieldRef?.fieldPath]));
  t.like(gatewayEnv, {
    GATEWAY_SOURCE: 'attach', GATEWAY_TARGET_CONTAINER: 'mcp-server', POD_NAME: 'metadata.name', POD_NAMESPACE: 'metadata.namespace',
    GATEWAY_MAX_SESSIONS: '256',
  });
  t.like(gateway!.env!.find((e) => e.name === 'GATEWAY_SECRET')?.valueFrom?.secretKeyRef, { name, key: '.gateway-secret' }, 'the gateway reads its secret from the Secret');
  t.regex(gatewaySecret, /^[A-Za-z0-9_-]{43}$/, '32 random bytes');
  t.deepEqual(gateway!.volumeMounts?.map((m) => m.mountPath), ['/var/run/secrets/kubernetes.io/serviceaccount', '/tmp']);

  const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name, uid: deployment.metadata!.uid };
  const secret = (await readSecret(name))!;
  t.deepEqual(decode(secret.data), { GITHUB_HOST: 'github.example', ORG_API_KEY: apiKey, GITHUB_TOKEN: token, '.gateway-secret': gatewaySecret });
  t.like(secret.metadata?.labels, labels);
  t.like(secret.metadata?.ownerReferences?.[0], owner);
  const service = (await readService(name))!;
  t.like(service.metadata?.labels, labels);
  t.like(service.metadata?.ownerReferences?.[0], owner);
  t.deepEqual(service.spec?.ports?.map((p) => [p.port, p.targetPort]), [[8080, 8080]]);
  t.like(service.spec?.selector, labels);
  // The token, the env inputs and the gateway secret live in the Secret's data and nowhere else.
  t.false(JSON.stringify([deployment, service, secret.metadata]).includes(token));
  t.false(JSON.stringify([deployment, service, secret.metadata]).includes(apiKey));
  t.false(JSON.stringify([deployment, service, secret.metadata]).includes(gatewaySecret));

  const again = await runtime.start(s, { readinessTimeoutMs: 60_000 });
  t.deepEqual(again, { target, gatewaySecret }, 'a start of the running workload answers its target and secret');
  t.is((await readDeployment(name))?.metadata?.uid, deployment.metadata?.uid, 'the second start reused the Deployment');
  await runtime.remove(s.connectorId);
});

test.serial('a start with another token replaces the workload: new Secret values, a new Deployment', async (t) => {
  const s = spec({ access_token_env_name: 'GITHUB_TOKEN' }, 'tok-old');
  const name = `mcp-${s.connectorId}`;
  const old = await runtime.start(s, { readinessTimeoutMs: 60_000 });
  const before = (await readDeployment(name))!;
  t.deepEqual(decode((await readSecret(name))!.data), { GITHUB_TOKEN: 'tok-old', '.gateway-secret': old.gatewaySecret });

  const renewed = await runtime.start({ ...s, token: 'tok-new' }, { readinessTimeoutMs: 60_000 });
  const after = (await readDeployment(name))!;
  t.not(renewed.gatewaySecret, old.gatewaySecret, 'a new workload, a new gateway secret');
  t.deepEqual(decode((await readSecret(name))!.data), { GITHUB_TOKEN: 'tok-new', '.gateway-secret': renewed.gatewaySecret });
  t.not(after.metadata?.uid, before.metadata?.uid, 'the old Deployment (and its pods, with the old env) was replaced');
  t.true((await podsOf(s.connectorId)).some((pod) => pod.metadata?.labels?.['connector-registry/instance'] === after.spec?.template.metadata?.labels?.['connector-registry/instance']));

  const same = await runtime.start({ ...s, token: 'tok-new' }, { readinessTimeoutMs: 60_000 });
  t.deepEqual(same, renewed);
  t.is((await readDeployment(name))?.metadata?.uid, after.metadata?.uid, 'the same token reuses the workload');
  await runtime.remove(s.connectorId);
});

test.serial('a running workload whose Secret is gone is replaced: nobody knows its gateway secret any more', async (t) => {
  const s = spec({ env: { A: 'b' } });
  const name = `mcp-${s.connectorId}`;
  const first = await runtime.start(s, { readinessTimeoutMs: 60_000 });
  const before = (await readDeployment(name))!;
  await adminApis.core.deleteNamespacedSecret({ name, namespace });
  const second = await runtime.start(s, { readinessTimeoutMs: 60_000 });
  t.not(second.gatewaySecret, first.gatewaySecret);
  const after = (await readDeployment(name))!;
  t.not(after.metadata?.uid, before.metadata?.uid, 'a new Deployment, whose gateway reads the new secret');
  const hash = (d: V1Deployment) => d.metadata?.annotations?.['connector-registry/pod-spec-hash'];
  t.is(hash(after), hash(before), 'the pod-spec hash holds no secret value: only the Secret made the difference');
  t.deepEqual(decode((await readSecret(name))!.data), { A: 'b', '.gateway-secret': second.gatewaySecret });
  await runtime.remove(s.connectorId);
});

test.serial('a Deployment a stopped start left at no replicas, without its Secret, is completed with a new gateway secret, not replaced', async (t) => {
  const s = spec({ env: { A: 'b' } });
  const name = `mcp-${s.connectorId}`;
  const ctx = {
    connectorId: s.connectorId, namespace, gatewayImage, gatewayMaxSessions: 256,
    proxySelector: parseLabelSelector(DEFAULT_KUBE_PROXY_SELECTOR), proxyNamespaceSelector: parseLabelSelector(DEFAULT_KUBE_PROXY_NAMESPACE_SELECTOR),
    egress: defaultWorkloadEgress(), internet: false,
  };
  // No pod has run: no gateway holds a secret, so none is lost.
  const left = await adminApis.apps.createNamespacedDeployment({ namespace, body: deploymentManifest(ctx, s.stdio, ['A'], 'x') });
  const { gatewaySecret } = await runtime.start(s, { readinessTimeoutMs: 60_000 });
  const deployment = (await readDeployment(name))!;
  t.is(deployment.metadata?.uid, left.metadata?.uid, 'the same Deployment, scaled up');
  t.is(deployment.spec?.replicas, 1);
  t.deepEqual(decode((await readSecret(name))!.data), { A: 'b', '.gateway-secret': gatewaySecret });
  await runtime.remove(s.connectorId);
});

test.serial('past the readiness limit (node cordoned, the pod never scheduled) start removes everything and throws', async (t) => {
  const s = spec({ env: { A: 'b' } }, 'tok');
  await cordonNodes(adminApis.core, true);
  try {
    const error = await t.throwsAsync(runtime.start(s, { readinessTimeoutMs: 2_000 }), { instanceOf: WorkloadTimeoutError });
    t.regex(error!.message, /^the stdio workload did not become ready within 2 s \(pod not scheduled: Unschedulable\)$/);
  } finally {
    await cordonNodes(adminApis.core, false);
  }
  t.true(await nothingLeft(`mcp-${s.connectorId}`), 'Deployment, Service and Secret are gone');
});

test.serial('a failure half-way through creation rolls back what was created', async (t) => {
  // A worker whose Role is the real one without "create services": the Deployment, the Secret and
  // the gateway's access objects get created, the Service is refused by the real RBAC authorizer.
  const objects = loadAllYaml(await readFile(join(RBAC_DIR, 'worker.yaml'), 'utf8')) as Array<{ kind: string }>;
  const workerRole = objects.find((o): o is V1Role & { kind: string } => o.kind === 'Role')!;
  const rules = workerRole.rules!.flatMap((rule) => {
    if (!rule.resources?.includes('services')) return [rule];
    const others = rule.resources.filter((r) => r !== 'services');
    const services = { ...rule, resources: ['services'], verbs: rule.verbs.filter((v) => v !== 'create') };
    return others.length > 0 ? [{ ...rule, resources: others }, services] : [services];
  });
  await admin.makeApiClient(RbacAuthorizationV1Api).createNamespacedRole({ namespace, body: { metadata: { name: 'half-worker' }, rules } });
  await adminApis.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'half-worker' } } });
  await admin.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({ namespace, body: {
    metadata: { name: 'half-worker' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'half-worker' },
    subjects: [{ kind: 'ServiceAccount', name: 'half-worker', namespace }],
  } });
  const half = new KubeRuntime({
    namespace, gatewayImage, logger: log, apis: apisOf(await serviceAccountConfig(admin, namespace, 'half-worker')),
  });
  const s = spec({ env: { A: 'b' } }, 'tok');
  await t.throwsAsync(half.start(s, { readinessTimeoutMs: 60_000 }), {
    message: /^Kubernetes API: create Service mcp-[-0-9a-f]+ failed with 403: services is forbidden/,
  });
  t.true(await nothingLeft(`mcp-${s.connectorId}`), 'the Secret and Deployment were removed again');
});

// The times are logged for reading; bench/ is where timings are compared.
test.serial('five start → remove cycles in a row against kwok: each reaches a Ready pod of its own, and leaves nothing behind', async (t) => {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const s = spec({ env: { A: 'b' } }, 'tok');
    const began = performance.now();
    await runtime.start(s, { readinessTimeoutMs: 60_000 });
    times.push(performance.now() - began);
    const pods = await podsOf(s.connectorId);
    t.true(pods.some((pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')), `cycle ${i + 1}: a Ready pod`);
    await runtime.remove(s.connectorId);
    t.true(await nothingLeft(`mcp-${s.connectorId}`), `cycle ${i + 1}: nothing left`);
  }
  const sorted = [...times].sort((a, b) => a - b);
  t.log(`Kubernetes path (kwok), 5 connects: median ${sorted[2]!.toFixed(0)} ms, min ${sorted[0]!.toFixed(0)} ms, max ${sorted[4]!.toFixed(0)} ms`);
});

test.serial('remove deletes the Deployment and every object it owns at once, and the pods go after them', async (t) => {
  const s = spec({}, null);
  await runtime.start(s, { readinessTimeoutMs: 60_000 });
  t.is((await podsOf(s.connectorId)).length, 1);
  await runtime.remove(s.connectorId);
  t.true(await nothingLeft(`mcp-${s.connectorId}`));
  t.true(await eventually(async () => (await podsOf(s.connectorId)).length === 0, 60_000), 'the pods are gone');
  await t.notThrowsAsync(runtime.remove(s.connectorId), 'removing again is fine');
});

test.serial('the owner references let the garbage collector take every object (Secret, Service, ServiceAccount, Role, RoleBinding, NetworkPolicy) with the Deployment', async (t) => {
  const s = spec({ env: { A: 'b' } });
  const name = `mcp-${s.connectorId}`;
  await runtime.start(s, { readinessTimeoutMs: 60_000 });
  await adminApis.apps.deleteNamespacedDeployment({ name, namespace, propagationPolicy: 'Background' });
  t.true(await eventually(() => nothingLeft(name), 60_000), 'kube-controller-manager removed the dependents');
});

test.serial('watch: missing for an unknown workload, exited when the Deployment is deleted, abort only stops watching', async (t) => {
  const heartbeat = () => undefined;
  t.deepEqual(await runtime.watch(randomUUID(), { heartbeat, signal: new AbortController().signal }), { kind: 'missing' });

  const s = spec();
  const name = `mcp-${s.connectorId}`;
  await runtime.start(s, { readinessTimeoutMs: 60_000 });
  const aborter = new AbortController();
  let heartbeats = 0;
  const stopOnSecondPoll = () => {
    heartbeats += 1;
    if (heartbeats === 2) aborter.abort(new Error('stop watching'));
  };
  const aborted = runtime.watch(s.connectorId, { heartbeat: stopOnSecondPoll, signal: aborter.signal });
  await t.throwsAsync(aborted, { message: 'stop watching' });
  t.truthy(await readDeployment(name), 'aborting a watch leaves the workload alone');

  // Deleted once the watch has seen the Deployment (its second poll begins): deleted earlier, it
  // would rightly answer 'missing'.
  let polls = 0;
  let seen!: () => void;
  const firstPollDone = new Promise<void>((resolve) => { seen = resolve; });
  const countPolls = () => { polls += 1; if (polls === 2) seen(); };
  const watching = runtime.watch(s.connectorId, { heartbeat: countPolls, signal: new AbortController().signal });
  await firstPollDone;
  await adminApis.apps.deleteNamespacedDeployment({ name, namespace });
  t.deepEqual(await watching, { kind: 'exited', reason: 'the workload was removed from the cluster' });
  await runtime.remove(s.connectorId);
});

test.serial('watch: exited with the reason when the stdio server container has ended', async (t) => {
  const s = spec();
  await runtime.start(s, { readinessTimeoutMs: 60_000 });
  const watching = runtime.watch(s.connectorId, { heartbeat: () => undefined, signal: new AbortController().signal });
  // A FAKE of what the kubelet reports when the server process dies (nothing runs under kwok).
  const [pod] = await podsOf(s.connectorId);
  const statuses = pod!.spec!.containers.map((c) => ({
    name: c.name, image: c.image, imageID: '', ready: false, restartCount: 0,
    state: c.name === 'mcp-server' ? { terminated: { exitCode: 1, reason: 'Error' } } : { running: {} },
  }));
  await adminApis.core.patchNamespacedPodStatus({
    name: pod!.metadata!.name!, namespace, body: [{ op: 'add', path: '/status/containerStatuses', value: statuses }],
  });
  t.deepEqual(await watching, { kind: 'exited', reason: 'stdio server exited with code 1' });
  await runtime.remove(s.connectorId);
});

test.serial('reconciliation removes the workloads of connectors that are not connected, and only those', async (t) => {
  const connected = spec();
  const orphan = spec({ env: { A: 'b' } });
  await runtime.start(connected, { readinessTimeoutMs: 60_000 });
  await runtime.start(orphan, { readinessTimeoutMs: 60_000 });
  // What a worker that died half-way through a start leaves: the Deployment, still without
  // replicas, and the Secret it owns. Reconciliation lists Deployments only (the worker may not
  // list Secrets) and finds it all the same.
  const leftover = spec({ env: { A: 'b' } });
  const ctx = { connectorId: leftover.connectorId, namespace, gatewayImage, gatewayMaxSessions: 256, proxySelector: { a: 'b' }, proxyNamespaceSelector: { c: 'd' }, egress: defaultWorkloadEgress(), internet: false };
  const half = await adminApis.apps.createNamespacedDeployment({ namespace, body: deploymentManifest(ctx, leftover.stdio, ['A'], 'x') });
  await adminApis.core.createNamespacedSecret({ namespace, body: secretManifest(ctx, { A: 'b' }, 'g'.repeat(43), ownerReference(half)) });
  // Everything else in the cluster counts as connected, so that the answer is exact.
  const isConnected = async (id: string) => id !== orphan.connectorId && id !== leftover.connectorId;

  const reconciler = startReconciler(runtime, isConnected, 60_000, log);
  const removed = await reconciler.runOnce(); // joins the pass started at once
  await reconciler.stop();

  t.deepEqual([...removed].sort(), [orphan.connectorId, leftover.connectorId].sort());
  t.true(await nothingLeft(`mcp-${orphan.connectorId}`));
  t.true(await nothingLeft(`mcp-${leftover.connectorId}`));
  t.truthy(await readDeployment(`mcp-${connected.connectorId}`), 'the connected one stays');
  await runtime.remove(connected.connectorId);
});

test.serial('from config: a kubeconfig file; young workloads survive reconciliation; bad env names fail early', async (t) => {
  const fromConfig = await createWorkloadRuntime({
    runtime: 'kubernetes', readyTimeoutMs: 60_000, gatewayMaxSessions: 17, container: { pull: 'never', owner: 'unused' },
    kube: {
      namespace, gatewayImage, reconcileIntervalMs: 60_000, reconcileGraceMs: 120_000, kubeconfig: cluster.kubeconfigPath,
      proxySelector: { app: 'proxy' }, proxyNamespaceSelector: { 'kubernetes.io/metadata.name': 'elsewhere' },
      egress: loadConfig({
        CONNECTOR__KUBE_CLUSTER_CIDRS: '203.0.113.0/24', CONNECTOR__KUBE_WORKLOAD_ALLOWED_NETWORKS: '10.20.0.0/16', CONNECTOR__KUBE_API_SERVER_CIDRS: '172.18.0.2',
      }).stdio.kube.egress,
    },
  }, log);
  const s = spec({ internet: true, allowed_networks: ['10.30.0.0/16'] });
  const { target } = await fromConfig.start(s, { readinessTimeoutMs: 60_000 });
  t.is(target, `http://mcp-${s.connectorId}.${namespace}.svc:8080/mcp`);
  // CONNECTOR__GATEWAY_MAX_SESSIONS reaches the sidecar.
  const sidecar = (await readDeployment(`mcp-${s.connectorId}`))!.spec!.template.spec!.containers.find((c) => c.name === 'gateway');
  t.is(sidecar?.env?.find((e) => e.name === 'GATEWAY_MAX_SESSIONS')?.value, '17');
  const peers = plain((await readNetworkPolicy(`mcp-${s.connectorId}`))!.spec!.ingress![0]!._from);
  t.deepEqual(peers, [{
    podSelector: { matchLabels: { app: 'proxy' } }, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'elsewhere' } },
  }], 'the proxy selectors come from the configuration');
  const egress = plain((await readNetworkPolicy(`mcp-${s.connectorId}`))!.spec!.egress) as { to: { ipBlock?: { cidr: string; except?: string[] } }[] }[];
  t.true(egress[0]!.to[0]!.ipBlock!.except!.includes('203.0.113.0/24'), 'the configured cluster CIDRs are refused');
  t.deepEqual(egress[1]!.to, [{ ipBlock: { cidr: '10.20.0.0/16' } }, { ipBlock: { cidr: '10.30.0.0/16' } }], 'the allowed networks, the deployment\'s and the preset\'s, are a rule of their own');
  t.deepEqual(egress[3], { to: [{ ipBlock: { cidr: '172.18.0.2/32' } }], ports: [{ protocol: 'TCP', port: 443 }, { protocol: 'TCP', port: 6443 }] },
    "the API server's endpoint, for the gateway's attach");
  // Another worker may be connecting it: within the grace period it is left alone.
  t.deepEqual(await fromConfig.reconcile(async () => false), []);
  await fromConfig.remove(s.connectorId);

  const bad = spec({ env: { 'NOT A KEY': 'x' } });
  await t.throwsAsync(fromConfig.start(bad, { readinessTimeoutMs: 5_000 }), {
    instanceOf: WorkloadSpecError, message: 'the env name "NOT A KEY" cannot be a Kubernetes Secret key',
  });
  t.true(await nothingLeft(`mcp-${bad.connectorId}`));
  await fromConfig.close();
});


test.serial('the pod is locked down: non-root, read-only root filesystem, no capabilities, RuntimeDefault seccomp, requests and limits, a scratch /tmp per container', async (t) => {
  // The namespace enforces the restricted Pod Security Standard: a pod that breaks it is refused.
  await t.throwsAsync(adminApis.core.createNamespacedPod({ namespace, body: {
    metadata: { name: `root-${randomUUID().slice(0, 8)}` }, spec: { containers: [{ name: 'c', image: 'busybox', securityContext: { runAsUser: 0 } }] },
  } }), { message: /violates PodSecurity/ });

  const s = spec({ env: { A: 'b' } });
  const name = `mcp-${s.connectorId}`;
  await runtime.start(s, { readinessTimeoutMs: 60_000 });
  t.true((await podsOf(s.connectorId)).length > 0, 'the pod was admitted under the restricted standard');
  const pod = (await readDeployment(name))!.spec!.template.spec!;
  t.deepEqual(plain(pod.securityContext), {
    runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' },
  });
  const [server, gateway] = pod.containers;
  const locked = {
    runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false,
    privileged: false, capabilities: { drop: ['ALL'] },
  };
  t.deepEqual(plain(server!.securityContext), locked, 'the MCP server container');
  t.deepEqual(plain(gateway!.securityContext), locked, 'the gateway container');
  t.deepEqual(plain(server!.resources), { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } });
  t.deepEqual(plain(gateway!.resources), { requests: { cpu: '50m', memory: '64Mi' }, limits: { cpu: '500m', memory: '256Mi' } });
  t.deepEqual(pod.volumes!.filter((v) => v.emptyDir).map((v) => [v.name, v.emptyDir!.sizeLimit]), [['server-tmp', '256Mi'], ['gateway-tmp', '64Mi']]);
  t.deepEqual(server!.volumeMounts!.map((m) => [m.name, m.mountPath]), [['server-tmp', '/tmp']], 'no API token in the server container');
  t.deepEqual(gateway!.volumeMounts!.map((m) => [m.name, m.mountPath]), [
    ['gateway-token', '/var/run/secrets/kubernetes.io/serviceaccount'], ['gateway-tmp', '/tmp'],
  ]);
  t.false(pod.automountServiceAccountToken);
  await runtime.remove(s.connectorId);
});

test.serial("a preset's own requests and limits reach the server container; other ones replace the workload", async (t) => {
  const s = spec({ resources: { requests: { cpu: '250m' }, limits: { cpu: '2', memory: '1Gi' } } });
  const name = `mcp-${s.connectorId}`;
  await runtime.start(s, { readinessTimeoutMs: 60_000 });
  const first = (await readDeployment(name))!;
  const [server, gateway] = first.spec!.template.spec!.containers;
  t.deepEqual(plain(server!.resources), { requests: { cpu: '250m', memory: '128Mi' }, limits: { cpu: '2', memory: '1Gi' } });
  t.deepEqual(plain(gateway!.resources), { requests: { cpu: '50m', memory: '64Mi' }, limits: { cpu: '500m', memory: '256Mi' } });

  // A limit under the default request takes the request down with it (the API server refuses a request above its limit).
  await runtime.start({ ...s, stdio: { ...s.stdio, resources: { limits: { memory: '64Mi' } } } }, { readinessTimeoutMs: 60_000 });
  const second = (await readDeployment(name))!;
  t.not(second.metadata?.uid, first.metadata?.uid, 'a pod spec is fixed: other resources need a new Deployment');
  t.deepEqual(plain(second.spec!.template.spec!.containers[0]!.resources), {
    requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '64Mi' },
  });
  await runtime.remove(s.connectorId);
});

test.serial('the NetworkPolicy admits only the proxy pods to port 8080, and egress to the cluster DNS only unless the preset allows more: no private, link-local or metadata address', async (t) => {
  const s = spec();
  const name = `mcp-${s.connectorId}`;
  await runtime.start(s, { readinessTimeoutMs: 60_000 });
  const deployment = (await readDeployment(name))!;
  const policy = (await readNetworkPolicy(name))!;
  const labels = { 'app.kubernetes.io/managed-by': 'connector-registry', 'connector-registry/connector-id': s.connectorId };
  t.like(policy.metadata?.labels, labels);
  t.like(policy.metadata?.ownerReferences?.[0], { kind: 'Deployment', name, uid: deployment.metadata!.uid });
  const dns = {
    to: [
      { podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } }, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } },
      { ipBlock: { cidr: '169.254.20.10/32' } },
    ],
    ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }],
  };
  t.deepEqual(plain(policy.spec), {
    podSelector: { matchLabels: labels },
    policyTypes: ['Ingress', 'Egress'],
    ingress: [{
      _from: [{
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'connector-registry', 'app.kubernetes.io/component': 'proxy' } },
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'connector-registry' } },
      }],
      ports: [{ protocol: 'TCP', port: 8080 }],
    }],
    egress: [dns],
  }, 'the API server accepted the policy as built: a preset that allows nothing reaches the cluster DNS only');
  await runtime.remove(s.connectorId);
  t.is(await readNetworkPolicy(name), undefined, 'remove takes the NetworkPolicy too');

  const open = spec({ internet: true });
  await runtime.start(open, { readinessTimeoutMs: 60_000 });
  const built = networkPolicySpec({
    connectorId: open.connectorId, namespace, gatewayImage, gatewayMaxSessions: 256, egress: defaultWorkloadEgress(), internet: true,
    proxySelector: parseLabelSelector(DEFAULT_KUBE_PROXY_SELECTOR), proxyNamespaceSelector: parseLabelSelector(DEFAULT_KUBE_PROXY_NAMESPACE_SELECTOR),
  });
  const stored = plain((await readNetworkPolicy(`mcp-${open.connectorId}`))!.spec!.egress) as Array<{ to: Array<{ ipBlock?: { except?: string[] } }> }>;
  t.deepEqual(stored, plain(built.egress), 'the API server took every refused range, their NAT64 and 6to4 forms too, as built');
  t.true(stored[0]!.to[1]!.ipBlock!.except!.includes('64:ff9b::a00:0/104'));
  await runtime.remove(open.connectorId);
});

test.serial("a workload's gateway may attach to its own pod only, also after the pod is replaced; no one lists Secrets", async (t) => {
  const a = spec();
  const b = spec();
  await runtime.start(a, { readinessTimeoutMs: 60_000 });
  await runtime.start(b, { readinessTimeoutMs: 60_000 });
  const podName = async (s: WorkloadSpec) => (await podsOf(s.connectorId)).find((p) => !p.metadata?.deletionTimestamp)?.metadata?.name;
  const podA = (await podName(a))!;
  const podB = (await podName(b))!;
  const gatewayA = `system:serviceaccount:${namespace}:mcp-${a.connectorId}`;
  const mayAttach = (user: string, pod: string) => canI(admin, user, { namespace, verb: 'create', resource: 'pods', subresource: 'attach', name: pod });

  t.true(await eventually(() => mayAttach(gatewayA, podA), 10_000), "A's gateway attaches to A's pod");
  t.true(await canI(admin, gatewayA, { namespace, verb: 'get', resource: 'pods', subresource: 'attach', name: podA }));
  t.true(await canI(admin, gatewayA, { namespace, verb: 'get', resource: 'pods', name: podA }));
  t.false(await mayAttach(gatewayA, podB), "but not to B's pod");
  t.false(await canI(admin, gatewayA, { namespace, verb: 'get', resource: 'pods', name: podB }));
  t.false(await canI(admin, gatewayA, { namespace, verb: 'create', resource: 'pods', subresource: 'attach' }), 'nor to any pod');
  t.false(await canI(admin, gatewayA, { namespace, verb: 'create', resource: 'pods', subresource: 'exec', name: podA }));
  t.false(await canI(admin, gatewayA, { namespace, verb: 'list', resource: 'pods' }));
  t.false(await canI(admin, gatewayA, { namespace, verb: 'list', resource: 'secrets' }));
  t.false(await canI(admin, gatewayA, { namespace, verb: 'get', resource: 'secrets', name: `mcp-${a.connectorId}` }));
  const worker = `system:serviceaccount:${serviceNamespace}:connector-registry-worker`;
  t.false(await canI(admin, worker, { namespace, verb: 'list', resource: 'secrets' }), 'the worker lists no Secrets');
  t.false(await canI(admin, worker, { namespace, verb: 'watch', resource: 'secrets' }));
  t.true(await canI(admin, worker, { namespace, verb: 'list', resource: 'deployments', group: 'apps' }), 'it lists Deployments');

  const name = `mcp-${a.connectorId}`;
  t.is((await readServiceAccount(name))?.automountServiceAccountToken, false);
  t.deepEqual(plain((await readRoleBinding(name))?.subjects), [{ kind: 'ServiceAccount', name, namespace }]);

  // The pod is replaced (evicted, its node lost): the watch that runs while the connector is
  // connected writes the new pod's name into the Role, and drops the old one.
  const aborter = new AbortController();
  const watching = runtime.watch(a.connectorId, { heartbeat: () => undefined, signal: aborter.signal });
  await adminApis.core.deleteNamespacedPod({ name: podA, namespace, gracePeriodSeconds: 0 });
  let replacement: string | undefined;
  t.true(await eventually(async () => {
    replacement = await podName(a);
    return replacement !== undefined && replacement !== podA && await mayAttach(gatewayA, replacement);
  }, 60_000), "A's gateway may attach to the replacement pod");
  t.false(await mayAttach(gatewayA, podA), 'and no longer to the old name');
  aborter.abort(new Error('stop watching'));
  await t.throwsAsync(watching, { message: 'stop watching' });

  await runtime.remove(a.connectorId);
  await runtime.remove(b.connectorId);
  t.true(await nothingLeft(name), 'the ServiceAccount, Role and RoleBinding go with the workload');
  t.true(await eventually(async () => !(await mayAttach(gatewayA, replacement!)), 10_000), 'and with them the right to attach');
});
