// The NetworkPolicy of one workload: only the service's proxy pods may reach the gateway's port,
// and the pod may reach anything but link-local addresses and cloud metadata endpoints (where
// node credentials live), DNS excepted since a node-local DNS cache listens on a link-local address.
// The MCP server is third-party code: it gets the outbound access it needs to reach its API and
// nothing that would hand it the cluster's or the cloud's credentials.
import type { V1NetworkPolicy, V1NetworkPolicyPeer, V1OwnerReference } from '@kubernetes/client-node';
import type { ManifestContext } from './kube-manifests';
import { CONNECTOR_ANNOTATION, GATEWAY_PORT, workloadLabels, workloadName } from './kube-names';

export const EGRESS_DENIED_V4 = ['169.254.0.0/16', '100.100.100.200/32'];
export const EGRESS_DENIED_V6 = ['fe80::/10', 'fd00:ec2::254/128'];

export function networkPolicyManifest(ctx: ManifestContext, owner: V1OwnerReference): V1NetworkPolicy {
  const labels = workloadLabels(ctx.connectorId);
  return {
    metadata: {
      name: workloadName(ctx.connectorId),
      namespace: ctx.namespace,
      labels,
      annotations: { [CONNECTOR_ANNOTATION]: ctx.connectorId },
      ownerReferences: [owner],
    },
    spec: {
      podSelector: { matchLabels: labels },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ _from: [proxyPeer(ctx)], ports: [{ protocol: 'TCP', port: GATEWAY_PORT }] }],
      egress: [
        {
          to: [
            { ipBlock: { cidr: '0.0.0.0/0', except: EGRESS_DENIED_V4 } },
            { ipBlock: { cidr: '::/0', except: EGRESS_DENIED_V6 } },
          ],
        },
        { ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] },
      ],
    },
  };
}

/** One peer: pods with the proxy's labels in namespaces with the given labels (both must hold). */
function proxyPeer(ctx: ManifestContext): V1NetworkPolicyPeer {
  return {
    podSelector: { matchLabels: ctx.proxySelector },
    namespaceSelector: { matchLabels: ctx.proxyNamespaceSelector },
  };
}
