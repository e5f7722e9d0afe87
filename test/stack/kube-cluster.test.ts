// Needs the cluster binaries built beforehand (`npm run toolchain -- --kube`, about 8 minutes
// once): building them inside a test would outlast any sensible timeout, so it fails instead.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { AppsV1Api, CoreV1Api, KubeConfig, type V1Deployment, type V1Pod } from '@kubernetes/client-node';
import { createLogger } from '../../platform/logger';
import { createKubeCluster } from '../../stack/servers/kube-cluster';
import { waitUntilGone } from './helpers/processes';

const log = createLogger('test-kube', process.env.LOG_LEVEL ?? 'error');
let workDir: string;

test.before(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kube-cluster-'));
});

test.after.always(async () => {
  await rm(workDir, { recursive: true, force: true });
});

const deployment: V1Deployment = {
  metadata: { name: 'echo', labels: { app: 'echo' } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'echo' } },
    template: {
      metadata: { labels: { app: 'echo' } },
      spec: {
        containers: [{
          name: 'echo',
          image: 'example.invalid/echo:1',
          readinessProbe: { httpGet: { path: '/ready', port: 8080 } },
        }],
      },
    },
  },
};

function isReady(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

async function readyPod(core: CoreV1Api, timeoutMs: number): Promise<V1Pod | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const pods = await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=echo' });
    const ready = pods.items.find(isReady);
    if (ready) return ready;
    await sleep(200);
  }
  return undefined;
}

test.serial('creates a kwok cluster where a Deployment gets a Ready pod, then deletes it', async (t) => {
  const cluster = await createKubeCluster({ workDir, name: 'stack-test', log, install: false });
  const clusterDir = join(workDir, 'clusters', 'stack-test');
  const apiserverPid = Number(readFileSync(join(clusterDir, 'pids', 'kube-apiserver.pid'), 'utf8'));
  try {
    const config = new KubeConfig();
    config.loadFromFile(cluster.kubeconfigPath);
    const nodes = await config.makeApiClient(CoreV1Api).listNode();
    t.is(nodes.items.length, 1, 'one kwok node');
    // kwokctl would otherwise add its context to the user's ~/.kube/config.
    t.regex(readFileSync(join(workDir, 'kubeconfig-contexts.yaml'), 'utf8'), /stack-test/);

    await config.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace: 'default', body: deployment });
    const pod = await readyPod(config.makeApiClient(CoreV1Api), 60_000);
    t.truthy(pod, 'the Deployment has a Ready pod');
    t.is(pod?.spec?.nodeName, nodes.items[0]?.metadata?.name);
  } finally {
    await cluster.delete();
  }
  t.false(existsSync(clusterDir), 'the cluster folder is gone');
  t.true(await waitUntilGone(apiserverPid, 10_000), 'kube-apiserver stopped');
});

test.serial('creating a cluster over a leftover one of the same name deletes the leftover first', async (t) => {
  const pidFile = join(workDir, 'clusters', 'leftover', 'pids', 'kube-apiserver.pid');
  // Never deleted by us, as if the process that created it had died.
  await createKubeCluster({ workDir, name: 'leftover', log, install: false });
  const leftoverApiserver = Number(readFileSync(pidFile, 'utf8'));
  const cluster = await createKubeCluster({ workDir, name: 'leftover', log, install: false });
  try {
    t.true(await waitUntilGone(leftoverApiserver, 10_000), 'the leftover kube-apiserver stopped');
    const config = new KubeConfig();
    config.loadFromFile(cluster.kubeconfigPath);
    t.is((await config.makeApiClient(CoreV1Api).listNode()).items.length, 1);
  } finally {
    await cluster.delete();
  }
});
