// What every manifest of one workload is built from: the connector, where it runs and the
// runtime's settings. A file of its own so that the manifests (kube-manifests.ts) and the
// NetworkPolicy (kube-network-policy.ts, whose spec the workload's template hash covers) share it
// without importing each other.
import type { WorkloadEgress } from '../../platform/workload-egress';

export interface ManifestContext {
  connectorId: string;
  namespace: string;
  gatewayImage: string;
  gatewayMaxSessions: number;
  /** matchLabels of the proxy pods and of their namespace: the only peers the NetworkPolicy admits. */
  proxySelector: Record<string, string>;
  proxyNamespaceSelector: Record<string, string>;
  /** What the workload may reach (its NetworkPolicy's egress). */
  egress: WorkloadEgress;
}
