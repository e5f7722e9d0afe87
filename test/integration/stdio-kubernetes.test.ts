// The Kubernetes stdio runtime through the API: the embedded stack with
// CONNECTOR__STDIO_RUNTIME=kubernetes against the kwok cluster's real kube-apiserver, the worker
// acting as the service account of deploy/rbac/worker.yaml. Create, connect, see the workload's
// objects, disconnect and delete, see them gone; the reconciler removes an orphan.
// KWOK STANDS IN FOR THE KUBELET: pods are scheduled and marked Ready, but no container runs, so
// no MCP request can reach the stdio server here (the proxy path to a workload is covered with the
// local runtime in stdio-local.test.ts and the gateway's own tests); the proxy is not asked to
// reach the cluster's Service names, which do not resolve on this machine.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { AppsV1Api, CoreV1Api, NetworkingV1Api, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { createLogger } from '../../platform/logger';
import { createWorkloadRuntime } from '../../activities/workloads/create-runtime';
import { loadConfig } from '../../config/config';
import { createKubeCluster, type KubeCluster } from '../../stack/servers/kube-cluster';
import { RBAC_DIR, adminConfig, applyYamlFile, eventually, readOrUndefined, serviceAccountConfig } from '../workloads/support/kube';
import { startTestStack, type TestStack } from '../helpers/test-stack';

const log = createLogger('test-stdio-kube', process.env.LOG_LEVEL ?? 'error');
const NAMESPACE = 'connector-workloads';
const PRESET = {
  url: 'mcp+stdio://everything',
  metadata: { name: 'Everything', description: 'the reference server' },
  stdio: { image: 'mcp/everything:2026.8', command: ['node', 'dist/index.js'], env: { LOG_LEVEL: 'debug' }, access_token_env_name: 'EVERYTHING_TOKEN' },
};
let scratch: string;
let cluster: KubeCluster;
let admin: KubeConfig;
let stack: TestStack;
let workerKubeconfig: string;

test.before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'stdio-kube-'));
  cluster = await createKubeCluster({ workDir: join(scratch, 'kwok'), name: 'stdio-api', log });
  admin = adminConfig(cluster.kubeconfigPath);
  await applyYamlFile(admin, join(RBAC_DIR, 'namespaces.yaml'));
  await applyYamlFile(admin, join(RBAC_DIR, 'worker.yaml'));
  const asWorker = await serviceAccountConfig(admin, 'connector-registry', 'connector-registry-worker');
  workerKubeconfig = join(scratch, 'worker.kubeconfig');
  await writeFile(workerKubeconfig, asWorker.exportConfig());
  stack = await startTestStack({
    CONNECTOR__STDIO_RUNTIME: 'kubernetes', KUBECONFIG: workerKubeconfig, CONNECTOR__KUBE_NAMESPACE: NAMESPACE,
    // Reconcile every second; a workload is safe for 15 s, long enough for any connect here to be
    // on record as connected (a shorter grace could remove a workload while it is being connected).
    CONNECTOR__KUBE_RECONCILE_INTERVAL_MS: '1000', CONNECTOR__KUBE_RECONCILE_GRACE_MS: '15000',
    CONNECTOR__PRESETS: JSON.stringify([PRESET]),
  });
});

test.after.always(async () => {
  await stack?.stop();
  await cluster?.delete();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** Every object of a workload, by kind: present (true) or not. */
async function objectsOf(connectorId: string): Promise<Record<string, boolean>> {
  const name = `mcp-${connectorId}`;
  const apps = admin.makeApiClient(AppsV1Api);
  const core = admin.makeApiClient(CoreV1Api);
  const net = admin.makeApiClient(NetworkingV1Api);
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const there = async (read: () => Promise<unknown>) => (await readOrUndefined(read)) !== undefined;
  const q = { name, namespace: NAMESPACE };
  return {
    Deployment: await there(() => apps.readNamespacedDeployment(q)),
    Service: await there(() => core.readNamespacedService(q)),
    Secret: await there(() => core.readNamespacedSecret(q)),
    NetworkPolicy: await there(() => net.readNamespacedNetworkPolicy(q)),
    ServiceAccount: await there(() => core.readNamespacedServiceAccount(q)),
    Role: await there(() => rbac.readNamespacedRole(q)),
    RoleBinding: await there(() => rbac.readNamespacedRoleBinding(q)),
  };
}
const ALL = { Deployment: true, Service: true, Secret: true, NetworkPolicy: true, ServiceAccount: true, Role: true, RoleBinding: true };
const NONE = Object.fromEntries(Object.keys(ALL).map((k) => [k, false]));

async function gone(connectorId: string): Promise<boolean> {
  return eventually(async () => JSON.stringify(await objectsOf(connectorId)) === JSON.stringify(NONE), 60_000);
}

test.serial('create, connect with a token, the workload objects exist; disconnect removes them; delete leaves nothing', async (t) => {
  const created = await stack.api('POST', '/api/v1/connectors', { url: PRESET.url });
  t.is(created.status, 201, created.text);
  const id = created.body.id as string;
  t.deepEqual(created.body.preset, { url: PRESET.url });

  const connected = await stack.api('POST', `/api/v1/connectors/${id}/connect`, { access_token: 'kube-token-5e1a' });
  t.is(connected.status, 200, connected.text);
  t.is(connected.body.state, 'connected');
  t.deepEqual(await objectsOf(id), ALL);
  const secret = await admin.makeApiClient(CoreV1Api).readNamespacedSecret({ name: `mcp-${id}`, namespace: NAMESPACE });
  const keys = Object.keys(secret.data ?? {}).sort();
  t.true(keys.includes('LOG_LEVEL') && keys.includes('EVERYTHING_TOKEN'), `the preset env and the token: ${keys.join(', ')}`);
  t.is(Buffer.from(secret.data!.EVERYTHING_TOKEN!, 'base64').toString(), 'kube-token-5e1a');
  const deployment = await admin.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: `mcp-${id}`, namespace: NAMESPACE });
  t.is(deployment.spec?.replicas, 1);
  t.is(deployment.status?.readyReplicas, 1, 'kwok marked the pod ready: that is what connect waited for');

  const disconnected = await stack.api('POST', `/api/v1/connectors/${id}/disconnect`);
  t.is(disconnected.status, 200, disconnected.text);
  t.is(disconnected.body.state, 'disconnected');
  t.true(await gone(id), 'disconnect removed every object of the workload');

  t.is((await stack.api('POST', `/api/v1/connectors/${id}/connect`, {})).body.state, 'connected', 'connect again');
  t.deepEqual(await objectsOf(id), ALL);
  t.is((await stack.api('DELETE', `/api/v1/connectors/${id}`)).status, 202);
  await eventually(async () => (await stack.api('GET', `/api/v1/connectors/${id}`)).status === 404, 60_000);
  t.true(await gone(id), 'delete removed every object of the workload');
  const events = (await stack.api('GET', `/api/v1/connectors/${id}/events`)).status;
  t.is(events, 404);
});

test.serial('the reconciler removes a workload whose connector is not connected', async (t) => {
  // A workload left behind by nobody: started with the runtime itself for a connector id the
  // registry has never seen (as a crashed worker could leave one).
  const config = loadConfig({ CONNECTOR__STDIO_RUNTIME: 'kubernetes', KUBECONFIG: workerKubeconfig, CONNECTOR__KUBE_NAMESPACE: NAMESPACE });
  const runtime = await createWorkloadRuntime(config.stdio, log);
  t.teardown(() => runtime.close());
  const orphan = '0193a0c4-0000-7000-8000-00000000beef';
  await runtime.start({ connectorId: orphan, stdio: PRESET.stdio, token: null }, { readinessTimeoutMs: 60_000 });
  t.deepEqual(await objectsOf(orphan), ALL);
  t.true(await gone(orphan), 'the worker\'s reconciliation removed it once past its grace period');
});
