// The NetworkPolicy of one workload: only the service's proxy pods may reach the gateway's port,
// and the pod may reach the public internet, the cluster DNS and (for the gateway's attach) the
// API server's endpoints on its ports, nothing else of the platform. The MCP
// server is third-party code: with egress to private ranges it reached Temporal's frontend (and
// through it Updates and Terminates of any connector's workflow, past every owner check), MongoDB,
// the service's metrics port and the API server. Egress rules add up (a packet passes when any
// rule admits it), so the allowed networks and DNS are rules of their own beside the one that
// admits everything but the refused ranges (platform/workload-egress.ts lists them).
import type { V1IPBlock, V1NetworkPolicy, V1NetworkPolicyEgressRule, V1NetworkPolicyPeer, V1NetworkPolicySpec, V1OwnerReference } from '@kubernetes/client-node';
import {
  NEVER_REACHED, PRIVATE_NETWORKS, cidrContains, isIPv6Cidr, outermost, type WorkloadEgress,
} from '../../platform/workload-egress';
import type { ManifestContext } from './kube-context';
import { CONNECTOR_ANNOTATION, GATEWAY_PORT, workloadLabels, workloadName } from './kube-names';

const DNS_PORTS = [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }];

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
    spec: networkPolicySpec(ctx),
  };
}

/** The spec alone: the workload's template hash covers it, so that a changed policy replaces the workload. */
export function networkPolicySpec(ctx: ManifestContext): V1NetworkPolicySpec {
  const labels = workloadLabels(ctx.connectorId);
  return {
    podSelector: { matchLabels: labels },
    policyTypes: ['Ingress', 'Egress'],
    ingress: [{ _from: [proxyPeer(ctx)], ports: [{ protocol: 'TCP', port: GATEWAY_PORT }] }],
    egress: egressRules(ctx.egress),
  };
}

export function egressRules(egress: WorkloadEgress): V1NetworkPolicyEgressRule[] {
  const refused = outermost([...NEVER_REACHED, ...PRIVATE_NETWORKS, ...egress.clusterCidrs]);
  const rules: V1NetworkPolicyEgressRule[] = [{
    to: [
      { ipBlock: { cidr: '0.0.0.0/0', except: refused.filter((c) => !isIPv6Cidr(c)) } },
      { ipBlock: { cidr: '::/0', except: refused.filter(isIPv6Cidr) } },
    ],
  }];
  if (egress.allowedNetworks.length > 0) rules.push({ to: outermost(egress.allowedNetworks).map((cidr) => ({ ipBlock: allowedBlock(cidr) })) });
  rules.push({ to: dnsPeers(egress.dns), ports: DNS_PORTS });
  const { apiServer } = egress;
  if (apiServer.cidrs.length > 0) {
    rules.push({ to: apiServer.cidrs.map((cidr) => ({ ipBlock: { cidr } })), ports: apiServer.ports.map((port) => ({ protocol: 'TCP', port })) });
  }
  return rules;
}

/** An allowed network never opens what lies in it and must stay closed (config refuses one inside such a range). */
function allowedBlock(cidr: string): V1IPBlock {
  const except = NEVER_REACHED.filter((never) => cidrContains(cidr, never) && never !== cidr);
  return except.length > 0 ? { cidr, except } : { cidr };
}

/**
 * The cluster DNS by its pods: most network plugins judge a Service's traffic after it is sent to
 * a pod, so the kube-dns Service address alone would not match. Addresses (a node-local cache's)
 * are listed beside it; on port 53 only.
 */
function dnsPeers(dns: WorkloadEgress['dns']): V1NetworkPolicyPeer[] {
  return [
    { podSelector: { matchLabels: dns.selector }, namespaceSelector: { matchLabels: dns.namespaceSelector } },
    ...dns.cidrs.map((cidr) => ({ ipBlock: { cidr } })),
  ];
}

/** One peer: pods with the proxy's labels in namespaces with the given labels (both must hold). */
function proxyPeer(ctx: ManifestContext): V1NetworkPolicyPeer {
  return {
    podSelector: { matchLabels: ctx.proxySelector },
    namespaceSelector: { matchLabels: ctx.proxyNamespaceSelector },
  };
}
