// The objects a workload's Deployment owns, in the order they are created: the Secret (the pod's
// env and the gateway's secret), the gateway's ServiceAccount, Role and RoleBinding, the Service
// and the NetworkPolicy. Each is created with its owner reference, so that the garbage collector
// removes whatever a crashed worker leaves once the Deployment goes, and reconciliation need only
// list Deployments.
import type { V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';
import { roleBindingManifest, roleManifest, serviceAccountManifest } from './kube-access-manifests';
import { kubeCall, unlessExists, unlessNotFound, type KubeApis } from './kube-api';
import { secretManifest, serviceManifest, type ManifestContext } from './kube-manifests';
import { networkPolicyManifest } from './kube-network-policy';
import { workloadName } from './kube-names';

/** What the workload's Secret holds: the server's env and, under its own key, the gateway's secret. */
export interface SecretValues {
  env: Record<string, string>;
  gatewaySecret: string;
}

interface Dependent {
  kind: string;
  create(apis: KubeApis, ctx: ManifestContext, owner: V1OwnerReference, values: SecretValues): Promise<unknown>;
  read(apis: KubeApis, namespace: string, name: string): Promise<{ metadata?: V1ObjectMeta }>;
  remove(apis: KubeApis, namespace: string, name: string): Promise<unknown>;
}

export const DEPENDENTS: readonly Dependent[] = [
  {
    kind: 'Secret',
    create: ({ core }, ctx, owner, { env, gatewaySecret }) =>
      core.createNamespacedSecret({ namespace: ctx.namespace, body: secretManifest(ctx, env, gatewaySecret, owner) }),
    read: ({ core }, namespace, name) => core.readNamespacedSecret({ name, namespace }),
    remove: ({ core }, namespace, name) => core.deleteNamespacedSecret({ name, namespace }),
  },
  {
    kind: 'ServiceAccount',
    create: ({ core }, ctx, owner) => core.createNamespacedServiceAccount({ namespace: ctx.namespace, body: serviceAccountManifest(ctx, owner) }),
    read: ({ core }, namespace, name) => core.readNamespacedServiceAccount({ name, namespace }),
    remove: ({ core }, namespace, name) => core.deleteNamespacedServiceAccount({ name, namespace }),
  },
  {
    kind: 'Role',
    create: ({ rbac }, ctx, owner) => rbac.createNamespacedRole({ namespace: ctx.namespace, body: roleManifest(ctx, owner) }),
    read: ({ rbac }, namespace, name) => rbac.readNamespacedRole({ name, namespace }),
    remove: ({ rbac }, namespace, name) => rbac.deleteNamespacedRole({ name, namespace }),
  },
  {
    kind: 'RoleBinding',
    create: ({ rbac }, ctx, owner) => rbac.createNamespacedRoleBinding({ namespace: ctx.namespace, body: roleBindingManifest(ctx, owner) }),
    read: ({ rbac }, namespace, name) => rbac.readNamespacedRoleBinding({ name, namespace }),
    remove: ({ rbac }, namespace, name) => rbac.deleteNamespacedRoleBinding({ name, namespace }),
  },
  {
    kind: 'Service',
    create: ({ core }, ctx, owner) => core.createNamespacedService({ namespace: ctx.namespace, body: serviceManifest(ctx, owner) }),
    read: ({ core }, namespace, name) => core.readNamespacedService({ name, namespace }),
    remove: ({ core }, namespace, name) => core.deleteNamespacedService({ name, namespace }),
  },
  {
    kind: 'NetworkPolicy',
    create: ({ networking }, ctx, owner) =>
      networking.createNamespacedNetworkPolicy({ namespace: ctx.namespace, body: networkPolicyManifest(ctx, owner) }),
    read: ({ networking }, namespace, name) => networking.readNamespacedNetworkPolicy({ name, namespace }),
    remove: ({ networking }, namespace, name) => networking.deleteNamespacedNetworkPolicy({ name, namespace }),
  },
];

/**
 * Creates the dependent owned by `owner`. One that exists already is kept when `owner` owns it;
 * otherwise it is a leftover (of an earlier Deployment, about to be collected, or of a crashed
 * start) and is replaced, so that nothing of an older workload is reused. Returns whether it
 * was created here.
 */
export async function ensureDependent(
  apis: KubeApis, dependent: Dependent, ctx: ManifestContext, owner: V1OwnerReference, values: SecretValues,
): Promise<boolean> {
  const { namespace } = ctx;
  const name = workloadName(ctx.connectorId);
  const what = `${dependent.kind} ${name}`;
  const create = () => dependent.create(apis, ctx, owner, values);
  if (await unlessExists(`create ${what}`, create)) return true;
  const existing = await unlessNotFound(`read ${what}`, () => dependent.read(apis, namespace, name));
  if (existing?.metadata?.ownerReferences?.some((ref) => ref.uid === owner.uid)) return false;
  if (existing) await unlessNotFound(`delete ${what}`, () => dependent.remove(apis, namespace, name));
  await kubeCall(`create ${what}`, create);
  return true;
}

export function removeDependents(apis: KubeApis, namespace: string, name: string): Promise<unknown>[] {
  return DEPENDENTS.map((d) => unlessNotFound(`delete ${d.kind} ${name}`, () => d.remove(apis, namespace, name)));
}
