// One guard for every address the service contacts on someone else's word (connector URLs,
// metadata documents, OAuth endpoints, each redirect). It runs inside the DNS lookup used to
// open the connection, so a name that re-resolves to a forbidden address between a check and the
// request (DNS rebinding) is refused too.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export interface AddressPolicy {
  /** Refuse loopback, private (RFC 1918), unique-local and CGNAT ranges as well. */
  blockPrivateNetworks: boolean;
  /**
   * CIDRs (as parseNetworks gives them) let through although private networks are blocked:
   * chosen internal MCP servers, authorization servers and the callers' issuer. They never
   * open an always-refused range (link-local, metadata, reserved).
   */
  allowedPrivateNetworks?: readonly string[];
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(readonly host: string, readonly address: string, readonly why: string) {
    super(`${host} resolves to ${address}, ${why}`);
  }
}

/** Cloud metadata endpoints that sit outside the link-local range (normalised form). */
const METADATA_ADDRESSES = new Set(['fd00:ec2::254', '100.100.100.200'].map((a) => ipaddr.parse(a).toNormalizedString()));
/**
 * Never contacted: link-local (cloud metadata lives there), unspecified, multicast, broadcast,
 * reserved, and IPv6's blocks that no server answers from: discard-only (100::/64), benchmarking
 * (2001:2::/48, as IPv4's 198.18.0.0/15 under reserved) and the ORCHID and DRIP identifiers.
 */
const ALWAYS_BLOCKED = new Set([
  'linkLocal', 'unspecified', 'multicast', 'broadcast', 'reserved',
  'discard', 'benchmarking', 'deprecatedOrchid', 'orchid2', 'droneRemoteIdProtocolEntityTags',
]);
/**
 * A site's own networks. Deprecated site-local (fec0::/10) is still routed inside the sites that
 * kept it, as unique-local is, and SRv6 segment identifiers (5f00::/16) inside their domain.
 */
const PRIVATE = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat', 'deprecatedSiteLocal', 'segmentRouting']);

/** Why an address is refused under the policy, or null when it may be contacted. */
export function refusalReason(address: string, policy: AddressPolicy): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = unwrapped(ipaddr.parse(address));
  if (parsed.kind() === 'ipv6') {
    // A translated or tunnelled address reaches the IPv4 address inside it: judge that one.
    for (const inner of embeddedIPv4((parsed as ipaddr.IPv6).toByteArray())) {
      const why = refusalReason(inner, policy);
      if (why) return `an address embedding ${inner}, ${why}`;
    }
  }
  return ownRefusal(parsed, policy);
}

function ownRefusal(parsed: ipaddr.IPv4 | ipaddr.IPv6, policy: AddressPolicy): string | null {
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString())) return 'a cloud metadata address';
  const range = parsed.range();
  if (ALWAYS_BLOCKED.has(range)) return `a ${range} address, which is never contacted`;
  if (policy.blockPrivateNetworks && PRIVATE.has(range) && !inNetworks(parsed, policy.allowedPrivateNetworks)) {
    return `a ${range} address, refused by CONNECTOR__BLOCK_PRIVATE_NETWORKS (not in CONNECTOR__ALLOWED_PRIVATE_NETWORKS)`;
  }
  return null;
}

/** Whether an address is in a private range (PRIVATE; IPv4-mapped and -translated read as IPv4). */
export function isPrivateAddress(address: string): boolean {
  return ipaddr.isValid(address) && PRIVATE.has(unwrapped(ipaddr.parse(address)).range());
}

/** Whether an address lies in one of the networks (CIDRs as parseNetworks gives them). */
export function isInNetworks(address: string, networks: readonly string[] | undefined): boolean {
  return ipaddr.isValid(address) && inNetworks(unwrapped(ipaddr.parse(address)), networks);
}

/**
 * IPv4-mapped (::ffff:a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d, RFC 6145/2765) addresses
 * are the IPv4 address they carry, to a dual-stack socket and to a SIIT translator alike: read
 * them as that IPv4 address (range, allowed networks and all).
 */
function unwrapped(parsed: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  const v6 = parsed.kind() === 'ipv6' ? (parsed as ipaddr.IPv6) : null;
  return v6 && isIPv4Wrapper(v6) ? fromBytes(v6.toByteArray().slice(12)) : parsed;
}

const isIPv4Wrapper = (v6: ipaddr.IPv6): boolean => ['ipv4Mapped', 'rfc6145'].includes(v6.range());
const fromBytes = (bytes: number[]): ipaddr.IPv4 => new ipaddr.IPv4(bytes);

type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];
const parsedNetworks = new Map<string, Network>();

function inNetworks(parsed: ipaddr.IPv4 | ipaddr.IPv6, networks: readonly string[] | undefined): boolean {
  if (!networks?.length) return false;
  return networks.some((cidr) => {
    let network = parsedNetworks.get(cidr);
    if (!network) {
      network = ipaddr.parseCIDR(cidr);
      if (parsedNetworks.size < 1000) parsedNetworks.set(cidr, network);
    }
    return network[0].kind() === parsed.kind() && parsed.match(network);
  });
}

/**
 * A comma-separated list of CIDRs (IPv4 and IPv6; a bare address is one host) in normalised
 * form; throws naming the entry that is not one. An IPv4-mapped or -translated IPv6 network is
 * kept as the IPv4 network it is, because those addresses are judged as IPv4.
 */
export function parseNetworks(text: string): string[] {
  return text.split(',').map((entry) => entry.trim()).filter(Boolean).map((entry) => {
    const [host = '', prefix] = entry.split('/');
    const cidr = `${host}/${prefix ?? (net.isIPv6(host) ? 128 : 32)}`;
    // Only the usual spellings: inet_aton's short and octal forms (10.1/16, 010.0.0.1) mislead,
    // and a zone (%eth0) names no network.
    if (host.includes('%') || !(net.isIPv6(host) || ipaddr.IPv4.isValidFourPartDecimal(host)) || !ipaddr.isValidCIDR(cidr)) {
      throw new Error(`${entry} is not a CIDR (like 10.20.0.0/16 or fd00:1::/64)`);
    }
    const [address, bits] = ipaddr.parseCIDR(cidr);
    const v6 = address.kind() === 'ipv6' ? (address as ipaddr.IPv6) : null;
    if (v6 && isIPv4Wrapper(v6) && bits >= 96) return networkOf(unwrapped(v6), bits - 96);
    return networkOf(address, bits);
  });
}

function networkOf(address: ipaddr.IPv4 | ipaddr.IPv6, bits: number): string {
  const network = address.kind() === 'ipv4'
    ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`)
    : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`);
  return `${network.toString()}/${bits}`;
}

const v4 = (b: number[], ...at: number[]) => at.map((i) => b[i]).join('.');
const startsWith = (b: number[], prefix: number[]) => prefix.every((byte, i) => b[i] === byte);
const zeros = (b: number[], from: number, to: number) => b.slice(from, to).every((x) => x === 0);

/** Where RFC 6052 puts the IPv4 address for each prefix length (byte 8, bits 64-71, is skipped). */
const RFC6052_LAYOUT = {
  48: [6, 7, 9, 10],
  56: [7, 9, 10, 11],
  64: [9, 10, 11, 12],
  96: [12, 13, 14, 15],
} as const;

/**
 * Each way an IPv6 address is known to carry an IPv4 address that traffic to it reaches.
 * (IPv4-mapped and -translated ones never get here: they are unwrapped first.) NAT64 with a
 * network-specific prefix and explicit address mappings (RFC 7757) are the operator's choice and
 * cannot be told from the address: list such prefixes nowhere, or block them at the network.
 */
const EMBEDDINGS: ReadonlyArray<(b: number[]) => string[]> = [
  // IPv4-compatible (::a.b.c.d, deprecated by RFC 4291); :: and ::1 are not.
  (b) => (zeros(b, 0, 12) && !zeros(b, 12, 16) && !(zeros(b, 12, 15) && b[15] === 1) ? [v4(b, ...RFC6052_LAYOUT[96])] : []),
  // NAT64, well-known prefix 64:ff9b::/96 (RFC 6052: only ever /96).
  (b) => (startsWith(b, [0x00, 0x64, 0xff, 0x9b]) && zeros(b, 4, 12) ? [v4(b, ...RFC6052_LAYOUT[96])] : []),
  // NAT64, local-use 64:ff9b:1::/48 (RFC 8215): the operator picks any RFC 6052 length from /48
  // on, and nothing in the address says which, so every layout that fits is read.
  (b) => (startsWith(b, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01]) ? reachableReadings(Object.values(RFC6052_LAYOUT).map((at) => v4(b, ...at))) : []),
  // 6to4 (2002::/16, RFC 3056).
  (b) => (startsWith(b, [0x20, 0x02]) ? [v4(b, 2, 3, 4, 5)] : []),
  // Teredo (2001::/32, RFC 4380): the server, and the client's address, stored inverted.
  (b) => (startsWith(b, [0x20, 0x01, 0x00, 0x00]) ? [v4(b, 4, 5, 6, 7), v4(b.map((x, i) => (i >= 12 ? x ^ 0xff : x)), 12, 13, 14, 15)] : []),
  // ISATAP (RFC 5214): any prefix, interface identifier 0000:5efe or 0200:5efe then the IPv4.
  (b) => ((b[8] === 0x00 || b[8] === 0x02) && startsWith(b.slice(9), [0x00, 0x5e, 0xfe]) ? [v4(b, 12, 13, 14, 15)] : []),
];

/**
 * A translator never sends to 0.0.0.0/8 (RFC 1122 allows it only as a source), so a layout that
 * reads there is not the one in use: without this, every usual /96 address would read as 0.0.0.0
 * under the /48 layout and be refused. When every layout reads there, they all stay (refused).
 */
function reachableReadings(readings: string[]): string[] {
  const reachable = readings.filter((address) => !address.startsWith('0.'));
  return reachable.length ? reachable : readings;
}

/** The IPv4 addresses an IPv6 address carries (see EMBEDDINGS), given as its 16 bytes. */
export function embeddedIPv4(b: number[]): string[] {
  return EMBEDDINGS.flatMap((embedding) => embedding(b));
}

/** Resolves a host name to every address it has and refuses it if any address is forbidden. */
export async function checkHost(host: string, policy: AddressPolicy): Promise<string[]> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const addresses = net.isIP(bare)
    ? [bare]
    : (await dns.promises.lookup(bare, { all: true, verbatim: true })).map((a) => a.address);
  for (const address of addresses) {
    const why = refusalReason(address, policy);
    if (why) throw new BlockedAddressError(bare, address, why);
  }
  return addresses;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/http/undici connections that applies the policy to every resolved address,
 * and `alsoRefuse` when given (a rule of the caller's about where the connection may go).
 */
export function guardedLookup(policy: AddressPolicy, alsoRefuse?: (address: string) => string | null) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (err, results) => {
      if (err) return callback(err, '');
      const list = results as dns.LookupAddress[];
      for (const entry of list) {
        const why = refusalReason(entry.address, policy) ?? alsoRefuse?.(entry.address) ?? null;
        if (why) return callback(new BlockedAddressError(hostname, entry.address, why) as unknown as NodeJS.ErrnoException, '');
      }
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
}
