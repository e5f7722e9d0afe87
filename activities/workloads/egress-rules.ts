// The packet filter of an egress network (egress-network.ts): nftables rules loaded into the
// workload's network namespace before any of its code runs, by root in that namespace, where the
// server (no capabilities) cannot change them. They restate the address guard's policy as
// networks (platform/workload-egress.ts): never the host itself (its addresses, whatever listens on
// them), loopback, link-local, metadata or reserved ranges; private ranges only where the preset
// allows them; public addresses only when it allows the internet. The user-mode stack's own
// network is closed but for its DNS forwarder.
import { WORKLOAD_REFUSALS, isIPv6Cidr, outermost } from '../../platform/workload-egress';

/** slirp4netns's defaults: the namespace's network, and where its DNS forwarder answers. */
export const STACK_NETWORK = '10.0.2.0/24';
export const STACK_DNS = '10.0.2.3';

export interface EgressPolicy {
  /** Public addresses (anything the guard lets through with private networks blocked). */
  internet: boolean;
  /** Private networks the preset allows (CIDRs, normalised; never inside a never-reached range). */
  allowedNetworks: readonly string[];
  /** This machine's own addresses: whatever the service listens on there stays out of reach. */
  hostAddresses: readonly string[];
}

export const EGRESS_TABLE = 'connector_workload';

export function egressRuleset(policy: EgressPolicy): string {
  const hosts = policy.hostAddresses.map((a) => `${a}/${isIPv6Cidr(a) ? 128 : 32}`);
  const never = outermost([STACK_NETWORK, ...WORKLOAD_REFUSALS.never, ...hosts]);
  const allowed = outermost(policy.allowedNetworks);
  const rules = [
    'oifname "lo" accept',
    `ip daddr ${STACK_DNS} udp dport 53 accept`,
    `ip daddr ${STACK_DNS} tcp dport 53 accept`,
    ...match(never, 'reject'),
    ...match(allowed, 'accept'),
    ...match(WORKLOAD_REFUSALS.unlessAllowed, 'reject'),
    ...(policy.internet ? [] : ['reject']),
  ];
  return [
    `table inet ${EGRESS_TABLE} {`,
    '  chain output {',
    '    type filter hook output priority filter; policy accept;',
    ...rules.map((rule) => `    ${rule}`),
    '  }',
    '}',
    '',
  ].join('\n');
}

/** One rule per family for a list of networks (none for an empty one: nft refuses an empty set). */
function match(cidrs: readonly string[], verdict: 'accept' | 'reject'): string[] {
  const v4 = cidrs.filter((c) => !isIPv6Cidr(c));
  const v6 = cidrs.filter(isIPv6Cidr);
  return [
    ...(v4.length ? [`ip daddr { ${v4.join(', ')} } ${verdict}`] : []),
    ...(v6.length ? [`ip6 daddr { ${v6.join(', ')} } ${verdict}`] : []),
  ];
}
