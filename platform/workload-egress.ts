// Where a managed stdio workload on Kubernetes may send traffic. The MCP server is third-party
// code: it reaches the public internet (its own API) and the cluster's DNS, and nothing of the
// platform: no private range (Temporal's frontend, MongoDB, the service's metrics port, the API
// server and every other in-cluster service live there), unless an operator allows a network for
// workloads on purpose. Config validates the settings here; the NetworkPolicy is built from them.
import ipaddr from 'ipaddr.js';
import { parseLabelSelector } from './kube-labels';

/**
 * Never reached, whatever is allowed: loopback (a pod's own, listed for completeness), link-local
 * (the cloud metadata endpoints and the node's credentials live there) and the metadata addresses
 * that sit outside it (Alibaba's, AWS's over IPv6).
 */
export const NEVER_REACHED = ['127.0.0.0/8', '169.254.0.0/16', '100.100.100.200/32', '::1/128', 'fe80::/10', 'fd00:ec2::254/128'];

/** Refused unless allowed: RFC 1918, carrier-grade NAT (RFC 6598) and IPv6 unique-local (RFC 4193). */
export const PRIVATE_NETWORKS = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7'];

/** The configured egress of workloads (README of deploy/helm/connector-registry, "Network policies"). */
export interface WorkloadEgress {
  /** The cluster's pod and service CIDRs (CONNECTOR__KUBE_CLUSTER_CIDRS): refused besides the private ranges, for clusters that number them elsewhere. */
  clusterCidrs: string[];
  /** CONNECTOR__KUBE_WORKLOAD_ALLOWED_NETWORKS: private or cluster networks workloads may reach all the same. */
  allowedNetworks: string[];
  /** The cluster DNS (port 53): its pods by labels, and addresses such as a node-local cache's. */
  dns: { selector: Record<string, string>; namespaceSelector: Record<string, string>; cidrs: string[] };
  /**
   * The Kubernetes API server's endpoint addresses and ports (CONNECTOR__KUBE_API_SERVER_CIDRS,
   * _PORTS): the gateway sidecar attaches to its own pod through the API, and a policy sees the
   * endpoint, not the `kubernetes` Service's address. The MCP server shares the pod's network
   * but not the gateway's token. Only those ports: a control plane on a node also serves the kubelet.
   */
  apiServer: { cidrs: string[]; ports: number[] };
}

export const DEFAULT_KUBE_DNS_SELECTOR = 'k8s-app=kube-dns';
export const DEFAULT_KUBE_DNS_NAMESPACE_SELECTOR = 'kubernetes.io/metadata.name=kube-system';
/** NodeLocal DNSCache's customary address (its docs' default): reached on port 53 only. */
export const DEFAULT_KUBE_DNS_CIDRS = '169.254.20.10/32';
/** Where API servers listen: 443 behind most managed clusters' endpoints, 6443 on kubeadm's nodes. */
export const DEFAULT_KUBE_API_SERVER_PORTS = '443,6443';

/** The egress with every setting at its default. */
export function defaultWorkloadEgress(): WorkloadEgress {
  return {
    clusterCidrs: [],
    allowedNetworks: [],
    dns: {
      selector: parseLabelSelector(DEFAULT_KUBE_DNS_SELECTOR),
      namespaceSelector: parseLabelSelector(DEFAULT_KUBE_DNS_NAMESPACE_SELECTOR),
      cidrs: [DEFAULT_KUBE_DNS_CIDRS],
    },
    apiServer: { cidrs: [], ports: parsePorts(DEFAULT_KUBE_API_SERVER_PORTS) },
  };
}

/** Whether `inner` lies within `outer` (both CIDRs of one family, as parseNetworks gives them). */
export function cidrContains(outer: string, inner: string): boolean {
  const [outerAddress, outerBits] = ipaddr.parseCIDR(outer);
  const [innerAddress, innerBits] = ipaddr.parseCIDR(inner);
  // Same family checked first: match() compares addresses of one kind only.
  return outerAddress.kind() === innerAddress.kind() && innerBits >= outerBits
    && (innerAddress as ipaddr.IPv4).match(outerAddress as ipaddr.IPv4, outerBits);
}

export const isIPv6Cidr = (cidr: string) => cidr.includes(':');

/** The list without entries that another entry holds: an `except` list says the same, shorter. */
export function outermost(cidrs: readonly string[]): string[] {
  const unique = [...new Set(cidrs)];
  return unique.filter((cidr) => !unique.some((other) => other !== cidr && cidrContains(other, cidr)));
}

/**
 * Throws for a network a NetworkPolicy could not state as asked: a /0 (an `except` must be a
 * strict part of 0.0.0.0/0 or ::/0), or, for an allowed one, a network inside a never-reached one.
 */
export function checkWorkloadNetworks(cidrs: readonly string[], kind: 'cluster' | 'allowed'): void {
  for (const cidr of cidrs) {
    if (cidr.endsWith('/0')) throw new Error(`${cidr} names every address; name the networks themselves`);
    const never = NEVER_REACHED.find((n) => cidrContains(n, cidr));
    if (kind === 'allowed' && never) throw new Error(`${cidr} lies in ${never}, which workloads never reach (loopback, link-local, metadata)`);
  }
}

/** A comma-separated list of TCP ports; throws naming the entry that is not one. */
export function parsePorts(text: string): number[] {
  return text.split(',').map((entry) => entry.trim()).filter(Boolean).map((entry) => {
    const port = Number(entry);
    if (!/^\d+$/.test(entry) || port < 1 || port > 65535) throw new Error(`${entry} is not a port (1 to 65535)`);
    return port;
  });
}
