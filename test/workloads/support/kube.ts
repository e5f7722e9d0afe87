// Helpers for the Kubernetes runtime tests against a real control plane (createKubeCluster):
// applying the project's RBAC files, acting as a service account, cordoning the fake node.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  AuthorizationV1Api, CoreV1Api, KubeConfig, KubernetesObjectApi, loadAllYaml, type KubernetesObject, type V1ResourceAttributes,
} from '@kubernetes/client-node';
import type { KubeApis } from '../../../activities/workloads/kube-api';
import { apisFrom, statusOf } from '../../../activities/workloads/kube-api';
import { pause } from '../../../activities/workloads/until-aborted';

export const RBAC_DIR = fileURLToPath(new URL('../../../deploy/rbac/', import.meta.url));

export function apisOf(config: KubeConfig): KubeApis {
  return apisFrom(config);
}

export function adminConfig(kubeconfigPath: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath);
  return config;
}

/** Creates every object of a YAML file, as `kubectl create -f` would. */
export async function applyYamlFile(config: KubeConfig, path: string): Promise<KubernetesObject[]> {
  const client = KubernetesObjectApi.makeApiClient(config);
  const objects = loadAllYaml(await readFile(path, 'utf8')) as KubernetesObject[];
  for (const object of objects) await client.create(object);
  return objects;
}

/** A kubeconfig that authenticates as the service account (a token from the TokenRequest API). */
export async function serviceAccountConfig(admin: KubeConfig, namespace: string, name: string): Promise<KubeConfig> {
  const core = admin.makeApiClient(CoreV1Api);
  const request = await core.createNamespacedServiceAccountToken({
    name, namespace, body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = admin.getCurrentCluster();
  if (!cluster || !request.status?.token) throw new Error('no cluster or no token');
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [cluster],
    users: [{ name, token: request.status.token }],
    contexts: [{ name, cluster: cluster.name, user: name, namespace }],
    currentContext: name,
  });
  return config;
}

/** A SubjectAccessReview: whether `user` may do what `attributes` describe. */
export async function canI(admin: KubeConfig, user: string, attributes: V1ResourceAttributes): Promise<boolean> {
  const review = await admin.makeApiClient(AuthorizationV1Api).createSubjectAccessReview({ body: { spec: { user, resourceAttributes: attributes } } });
  return review.status?.allowed ?? false;
}

/** Marks every node unschedulable (true) or schedulable again (false). */
export async function cordonNodes(core: CoreV1Api, unschedulable: boolean): Promise<void> {
  const nodes = await core.listNode();
  for (const node of nodes.items) {
    await core.patchNode({ name: node.metadata!.name!, body: [{ op: 'add', path: '/spec/unschedulable', value: unschedulable }] });
  }
}

/** The object, or undefined on 404. */
export async function readOrUndefined<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (statusOf(error) === 404) return undefined;
    throw error;
  }
}

/** Polls `check` until it returns true; false if it never did within `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await pause(200);
  }
  return check();
}
