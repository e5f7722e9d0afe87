// The Kubernetes runtime against a real control plane: etcd, kube-apiserver,
// kube-controller-manager (its garbage collector included) and kube-scheduler, built from source
// and cached (createKubeCluster builds them when missing). KWOK STANDS IN FOR THE KUBELET: there
// is no container runtime here, so pods never run; kwok marks a scheduled pod Ready whatever its
// probes say. What is shown is the API side: the objects, readiness, timeout, removal, RBAC.
// The runtime acts as the worker's service account from deploy/rbac/worker.yaml, so every call
// it makes is one that Role allows.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { AuthorizationV1Api, RbacAuthorizationV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { createLogger } from '../../core/logger';
import { WorkloadSpecError, WorkloadTimeoutError } from '../../activities/workloads/errors';
import type { KubeApis } from '../../activities/workloads/kube-api';
import { KubeRuntime } from '../../activities/workloads/kube-runtime';
import { createWorkloadRuntime } from '../../activities/workloads/create-runtime';
import type { WorkloadSpec } from '../../activities/workloads/runtime';
import { createKubeCluster, type KubeCluster } from '../../stack/servers/kube-cluster';
import { startReconciler } from '../../stack/reconciler';
import {
  RBAC_DIR, adminConfig, apisOf, applyYamlFile, cordonNodes, eventually, readOrUndefined, serviceAccountConfig,
} from './support/kube';

const log = createLogger('test-kube-workloads', process.env.LOG_LEVEL ?? 'error');
const namespace = 'default';
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
  await applyYamlFile(admin, join(RBAC_DIR, 'gateway.yaml'));
  await applyYamlFile(admin, join(RBAC_DIR, 'worker.yaml'));
  const worker = await serviceAccountConfig(admin, namespace, 'connector-registry-worker');
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

async function nothingLeft(name: string): Promise<boolean> {
  const left = await Promise.all([readDeployment(name), readService(name), readSecret(name)]);
  return left.every((object) => object === undefined);
}

async function podsOf(connectorId: string): Promise<V1Pod[]> {
  const labelSelector = `connector-registry/connector-id=${connectorId}`;
  return (await adminApis.core.listNamespacedPod({ namespace, labelSelector })).items;
}

const decode = (data: Record<string, string> | undefined) =>
  Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));

test.serial('start creates the Secret, Deployment and Service described, waits for the Ready pod, and is idempotent', async (t) => {
  const token = `tok-${randomUUID()}`;
  const s = spec({ command: ['mcp-server-github'], args: ['stdio'], env: { GITHUB_HOST: 'github.example' }, access_token_env_name: 'GITHUB_TOKEN' }, token);
  const name = `mcp-${s.connectorId}`;
  let heartbeats = 0;
  const began = performance.now();
  const { target } = await runtime.start(s, { readinessTimeoutMs: 60_000, heartbeat: () => heartbeats++ });
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
  t.is(pod.serviceAccountName, 'connector-registry-gateway');
  t.false(pod.automountServiceAccountToken, 'the MCP server container gets no API token');
  t.deepEqual(pod.containers.map((c) => c.name), ['mcp-server', 'gateway']);
  const [server, gateway] = pod.containers;
  t.like(server, { image: s.stdio.image, command: ['mcp-server-github'], args: ['stdio'], stdin: true });
  t.falsy(server!.tty, 'tty: false (the API server leaves the default out)');
  t.deepEqual(server!.env?.map((e) => [e.name, e.valueFrom?.secretKeyRef?.name, e.valueFrom?.secretKeyRef?.key]), [
    ['GITHUB_HOST', name, 'GITHUB_HOST'], ['GITHUB_TOKEN', name, 'GITHUB_TOKEN'],
  ]);
  t.is(gateway!.image, gatewayImage);
  t.deepEqual(gateway!.ports?.map((p) => p.containerPort), [8080]);
  t.like(gateway!.readinessProbe?.httpGet, { path: '/healthz', port: 8080 });
  const gatewayEnv = Object.fromEntries(gateway!.env!.map((e) => [e.name, e.value ?? e.valueFrom?.fieldRef?.fieldPath]));
  t.like(gatewayEnv, { GATEWAY_SOURCE: 'attach', GATEWAY_TARGET_CONTAINER: 'mcp-server', POD_NAME: 'metadata.name', POD_NAMESPACE: 'metadata.namespace' });
  t.deepEqual(gateway!.volumeMounts?.map((m) => m.mountPath), ['/var/run/secrets/kubernetes.io/serviceaccount']);

  const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name, uid: deployment.metadata!.uid };
  const secret = (await readSecret(name))!;
  t.deepEqual(decode(secret.data), { GITHUB_HOST: 'github.example', GITHUB_TOKEN: token });
  t.like(secret.metadata?.labels, labels);
  t.like(secret.metadata?.ownerReferences?.[0], owner);
  const service = (await readService(name))!;
  t.like(service.metadata?.labels, labels);
  t.like(service.metadata?.ownerReferences?.[0], owner);
  t.deepEqual(service.spec?.ports?.map((p) => [p.port, p.targetPort]), [[8080, 8080]]);
  t.like(service.spec?.selector, labels);
  // The token lives in the Secret's data and nowhere else.
  t.false(JSON.stringify([deployment, service, secret.metadata]).includes(token));

  const again = await runtime.start(s, { readinessTimeoutMs: 60_000 });
  t.is(again.target, target);
  t.is((await readDeployment(name))?.metadata?.uid, deployment.metadata?.uid, 'the second start reused the Deployment');
  await runtime.remove(s.connectorId);
});

test.serial('a start with another token replaces the workload: new Secret values, a new Deployment', async (t) => {
  const s = spec({ access_token_env_name: 'GITHUB_TOKEN' }, 'tok-old');
  const name = `mcp-${s.connectorId}`;
  await runtime.start(s, { readinessTimeoutMs: 60_000 });
  const before = (await readDeployment(name))!;
  t.deepEqual(decode((await readSecret(name))!.data), { GITHUB_TOKEN: 'tok-old' });

  await runtime.start({ ...s, token: 'tok-new' }, { readinessTimeoutMs: 60_000 });
  const after = (await readDeployment(name))!;
  t.deepEqual(decode((await readSecret(name))!.data), { GITHUB_TOKEN: 'tok-new' });
  t.not(after.metadata?.uid, before.metadata?.uid, 'the old Deployment (and its pods, with the old env) was replaced');
  t.true((await podsOf(s.connectorId)).some((pod) => pod.metadata?.labels?.['connector-registry/instance'] === after.spec?.template.metadata?.labels?.['connector-registry/instance']));

  const same = await runtime.start({ ...s, token: 'tok-new' }, { readinessTimeoutMs: 60_000 });
  t.truthy(same.target);
  t.is((await readDeployment(name))?.metadata?.uid, after.metadata?.uid, 'the same token reuses the workload');
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
  // A worker whose Role lacks "create services": the Secret and the Deployment get created, the
  // Service is refused by the real RBAC authorizer.
  await admin.makeApiClient(RbacAuthorizationV1Api).createNamespacedRole({ namespace, body: {
    metadata: { name: 'half-worker' },
    rules: [
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'create', 'delete'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'delete', 'patch'] },
      { apiGroups: [''], resources: ['services'], verbs: ['get', 'delete'] },
    ],
  } });
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

test.serial('remove deletes the Deployment, Service and Secret at once, and the pods go after them', async (t) => {
  const s = spec({}, null);
  await runtime.start(s, { readinessTimeoutMs: 60_000 });
  t.is((await podsOf(s.connectorId)).length, 1);
  await runtime.remove(s.connectorId);
  t.true(await nothingLeft(`mcp-${s.connectorId}`));
  t.true(await eventually(async () => (await podsOf(s.connectorId)).length === 0, 60_000), 'the pods are gone');
  await t.notThrowsAsync(runtime.remove(s.connectorId), 'removing again is fine');
});

test.serial('the owner references let the garbage collector take the Secret and Service with the Deployment', async (t) => {
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

  const watching = runtime.watch(s.connectorId, { heartbeat, signal: new AbortController().signal });
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
  // A Secret left alone by a worker that died before creating the Deployment.
  const leftover = spec({ env: { A: 'b' } });
  await adminApis.core.createNamespacedSecret({ namespace, body: {
    metadata: { name: `mcp-${leftover.connectorId}`, labels: { 'app.kubernetes.io/managed-by': 'connector-registry' },
      annotations: { 'connector-registry/connector-id': leftover.connectorId } },
  } });
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
  const fromConfig = createWorkloadRuntime({
    runtime: 'kubernetes', readyTimeoutMs: 60_000,
    kube: { namespace, gatewayImage, reconcileIntervalMs: 60_000, kubeconfig: cluster.kubeconfigPath },
  }, log);
  const s = spec();
  const { target } = await fromConfig.start(s, { readinessTimeoutMs: 60_000 });
  t.is(target, `http://mcp-${s.connectorId}.${namespace}.svc:8080/mcp`);
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

test.serial('the gateway service account may attach to pods and nothing more', async (t) => {
  const review = admin.makeApiClient(AuthorizationV1Api);
  const can = async (verb: string, resource: string, subresource?: string) => {
    const answer = await review.createSubjectAccessReview({ body: { spec: {
      user: 'system:serviceaccount:default:connector-registry-gateway',
      resourceAttributes: { namespace, verb, resource, subresource },
    } } });
    return answer.status?.allowed ?? false;
  };
  t.true(await can('create', 'pods', 'attach'));
  t.true(await can('get', 'pods'));
  t.false(await can('create', 'pods', 'exec'));
  t.false(await can('get', 'secrets'));
  t.false(await can('list', 'pods'));
});
