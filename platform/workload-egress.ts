// Where a managed stdio workload may send traffic, on every runtime. The MCP server is third-party
// code: it may reach what its preset allows (the public internet, networks named for it) and
// nothing of the platform: no loopback (the embedded Temporal and FerretDB, the gateways), no
// private range (Temporal's frontend, MongoDB, the service's metrics port, the API server and
// every other in-cluster service live there). The address guard (address-guard.ts) judges each
// connection the service opens; a workload's connections are judged by a packet filter (a
// NetworkPolicy, or nftables in the local and container runtimes' network namespaces), which sees
// addresses only: so the guard's ranges are listed here as networks, translated forms included.
import ipaddr from 'ipaddr.js';
import { ALWAYS_REFUSED_RANGES, METADATA_ADDRESSES, PRIVATE_RANGES, parseNetworks } from './address-guard';
import { parseLabelSelector } from './kube-labels';

/** What a workload never reaches, and what it reaches only when its preset or the operator allows it. */
export interface WorkloadRefusals {
  /**
   * Never, whatever is allowed: loopback (a workload's own is its own; the host's is the
   * platform's), link-local (cloud metadata and the node's credentials), the metadata addresses
   * outside it, and the ranges the guard never contacts (multicast, reserved, ...).
   */
  never: string[];
  /** Unless allowed: RFC 1918, carrier-grade NAT, unique-local, site-local, SRv6. */
  unlessAllowed: string[];
}

const hostBits = (address: string) => (address.includes(':') ? 128 : 32);

/** The CIDRs ipaddr.js gives its named ranges, IPv4 and IPv6. */
function rangesNamed(names: ReadonlySet<string>): string[] {
  const cidrs: string[] = [];
  for (const kind of [ipaddr.IPv4, ipaddr.IPv6]) {
    // Not in ipaddr.js's types, but its documented table of what range() answers.
    const table = (kind.prototype as unknown as { SpecialRanges: unknown }).SpecialRanges as Record<string, [ipaddr.IPv4 | ipaddr.IPv6, number] | Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>>;
    for (const [name, value] of Object.entries(table)) {
      if (!names.has(name)) continue;
      const list = (Array.isArray(value[0]) ? value : [value]) as Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
      cidrs.push(...list.map(([address, bits]) => `${address.toString()}/${bits}`));
    }
  }
  return cidrs;
}

/**
 * The IPv6 networks that reach an IPv4 network through a translator or a tunnel, in the layouts
 * a prefix can state: NAT64's well-known prefix (64:ff9b::/96, RFC 6052), 6to4 (2002::/16, RFC
 * 3056) and IPv4-compatible addresses (::/96). A packet filter cannot read an address inside an
 * address as the guard does; a prefix per refused network says the same.
 */
export function translatedForms(v4cidr: string): string[] {
  const [address, bits] = ipaddr.parseCIDR(v4cidr);
  const b = address.toByteArray();
  const v6 = (bytes: number[], prefix: number) => `${ipaddr.fromByteArray(bytes).toString()}/${prefix}`;
  const zeros = (n: number) => new Array<number>(n).fill(0);
  return [
    v6([0x00, 0x64, 0xff, 0x9b, ...zeros(8), ...b], 96 + bits),
    v6([0x20, 0x02, ...b, ...zeros(10)], 16 + bits),
    v6([...zeros(12), ...b], 96 + bits),
  ];
}

/**
 * Translation prefixes refused whole. IPv4-mapped and IPv4-translated addresses (::ffff:0:0/96,
 * ::ffff:0:0:0/96) carry no traffic of their own on a wire: an allowed IPv4 network is allowed as
 * itself. Local-use NAT64 (64:ff9b:1::/48, RFC 8215) puts the IPv4 address where its operator
 * chose, so no prefix can say which part of it reaches a private network: allow it by name.
 */
export const IPV4_MAPPED = '::ffff:0:0/96';
const MAPPED = [IPV4_MAPPED, '::ffff:0:0:0/96'];
const LOCAL_USE_NAT64 = '64:ff9b:1::/48';

function computeRefusals(): WorkloadRefusals {
  const metadata = [...METADATA_ADDRESSES].map((a) => `${ipaddr.parse(a).toString()}/${hostBits(a)}`);
  const never = outermost([...rangesNamed(new Set([...ALWAYS_REFUSED_RANGES, 'loopback'])), ...metadata, ...MAPPED]);
  const unlessAllowed = outermost(rangesNamed(new Set([...PRIVATE_RANGES].filter((r) => r !== 'loopback'))))
    .filter((cidr) => !never.some((n) => cidrContains(n, cidr)));
  const v4 = (list: string[]) => list.filter((c) => !isIPv6Cidr(c));
  // IPv4 first, then IPv6: the order a person reads a NetworkPolicy's except lists in.
  const ordered = (list: string[]) => [...v4(list), ...list.filter(isIPv6Cidr)];
  return {
    never: ordered(outermost([...never, ...v4(never).flatMap(translatedForms)])),
    unlessAllowed: ordered(outermost([...unlessAllowed, LOCAL_USE_NAT64, ...v4(unlessAllowed).flatMap(translatedForms)])),
  };
}

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
    const never = WORKLOAD_REFUSALS.never.find((n) => cidrContains(n, cidr));
    if (kind === 'allowed' && never) throw new Error(`${cidr} lies in ${never}, which workloads never reach (loopback, link-local, metadata, reserved)`);
  }
}

/** A preset's allow-list (stdio `allowed_networks`, a registry overlay's) as normalised CIDRs; throws naming the entry that cannot be allowed. */
export function parseWorkloadNetworks(cidrs: readonly string[]): string[] {
  const networks = parseNetworks(cidrs.join(','));
  checkWorkloadNetworks(networks, 'allowed');
  return networks;
}

/** A comma-separated list of TCP ports; throws naming the entry that is not one. */
export function parsePorts(text: string): number[] {
  return text.split(',').map((entry) => entry.trim()).filter(Boolean).map((entry) => {
    const port = Number(entry);
    if (!/^\d+$/.test(entry) || port < 1 || port > 65535) throw new Error(`${entry} is not a port (1 to 65535)`);
    return port;
  });
}

// Last: computed at load, from the helpers above.
export const WORKLOAD_REFUSALS: WorkloadRefusals = computeRefusals();
