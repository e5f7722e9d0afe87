// What the gateway sidecar of one workload may do in the cluster: per workload a ServiceAccount, a
// Role and a RoleBinding, all named like the workload and owned by its Deployment. The Role names
// the workload's pods in resourceNames, so that a gateway can attach to its own pod and to no
// other. Pod names of a Deployment exist only once the pods do: the Role starts with no rules at
// all (an empty resourceNames would mean every pod) and kube-runtime.ts fills in the names when
// it sees the pods (see deploy/rbac/README.md).
import type { V1OwnerReference, V1PolicyRule, V1Role, V1RoleBinding, V1ServiceAccount } from '@kubernetes/client-node';
import type { ManifestContext } from './kube-manifests';
import { CONNECTOR_ANNOTATION, workloadLabels, workloadName } from './kube-names';

function ownedMetadata(ctx: ManifestContext, owner: V1OwnerReference) {
  return {
    name: workloadName(ctx.connectorId),
    namespace: ctx.namespace,
    labels: workloadLabels(ctx.connectorId),
    annotations: { [CONNECTOR_ANNOTATION]: ctx.connectorId },
    ownerReferences: [owner],
  };
}

export function serviceAccountManifest(ctx: ManifestContext, owner: V1OwnerReference): V1ServiceAccount {
  // The pod mounts a projected token into the gateway container alone.
  return { metadata: ownedMetadata(ctx, owner), automountServiceAccountToken: false };
}

export function roleManifest(ctx: ManifestContext, owner: V1OwnerReference): V1Role {
  return { metadata: ownedMetadata(ctx, owner), rules: gatewayRules([]) };
}

export function roleBindingManifest(ctx: ManifestContext, owner: V1OwnerReference): V1RoleBinding {
  const name = workloadName(ctx.connectorId);
  return {
    metadata: ownedMetadata(ctx, owner),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'ServiceAccount', name, namespace: ctx.namespace }],
  };
}

/** Reading and attaching to exactly these pods; nothing at all without a pod. */
export function gatewayRules(podNames: string[]): V1PolicyRule[] {
  if (podNames.length === 0) return [];
  const resourceNames = [...podNames].sort();
  return [
    { apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames },
    // The attach stream is a WebSocket upgrade of a GET request: API servers before 1.35 authorize
    // it as "get", later ones as "create" (KEP-4006), so both are granted.
    { apiGroups: [''], resources: ['pods/attach'], verbs: ['create', 'get'], resourceNames },
  ];
}
