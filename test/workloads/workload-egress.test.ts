// The workloads' address policy as networks, against the address guard it restates: a packet
// filter (NetworkPolicy, nftables) sees addresses only, so what the guard refuses by reading an
// IPv4 address inside an IPv6 one must be a prefix here. Pure: nothing is contacted.
import test from 'ava';
import ipaddr from 'ipaddr.js';
import { refusalReason } from '../../platform/address-guard';
import { WORKLOAD_REFUSALS, checkWorkloadNetworks, translatedForms } from '../../platform/workload-egress';

const strict = { blockPrivateNetworks: true };
const refused = [...WORKLOAD_REFUSALS.never, ...WORKLOAD_REFUSALS.unlessAllowed];

function covered(address: string, networks: readonly string[] = refused): string | undefined {
  const parsed = ipaddr.parse(address);
  return networks.find((cidr) => {
    const network = ipaddr.parseCIDR(cidr);
    return network[0].kind() === parsed.kind() && parsed.match(network);
  });
}

const v6 = (bytes: number[]) => ipaddr.fromByteArray(bytes).toString();
const embed = {
  nat64: (v4: number[]) => v6([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0, ...v4]),
  localNat64: (v4: number[]) => v6([0, 0x64, 0xff, 0x9b, 0, 1, 0, 0, 0, 0, 0, 0, ...v4]),
  sixToFour: (v4: number[]) => v6([0x20, 0x02, ...v4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
  mapped: (v4: number[]) => v6([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4]),
};

const PRIVATE_V4 = ['10.0.0.1', '10.255.255.53', '172.16.0.1', '192.168.1.1', '100.64.0.1', '127.0.0.1', '169.254.169.254', '100.100.100.200', '192.0.2.2'];
const PUBLIC_V4 = ['93.184.216.34', '8.8.8.8', '1.1.1.1', '151.101.1.1'];
const bytes = (a: string) => ipaddr.parse(a).toByteArray();

test('the IPv6 translation prefixes (64:ff9b::/96, 64:ff9b:1::/48, 2002::/16, ::ffff:0:0/96) are covered wherever they reach a refused IPv4 address', (t) => {
  for (const address of PRIVATE_V4) {
    t.truthy(covered(address), address);
    for (const [form, make] of Object.entries(embed)) {
      const translated = make(bytes(address));
      t.truthy(covered(translated), `${form} of ${address}: ${translated}`);
      t.truthy(refusalReason(translated, strict), `the guard refuses ${translated} too`);
    }
  }
});

test('public IPv4 addresses stay reachable behind NAT64 and 6to4, as the guard lets them', (t) => {
  for (const address of PUBLIC_V4) {
    t.is(covered(address), undefined, address);
    for (const make of [embed.nat64, embed.sixToFour]) {
      const translated = make(bytes(address));
      t.is(covered(translated), undefined, translated);
      t.is(refusalReason(translated, strict), null, translated);
    }
    // Local-use NAT64 cannot be read (its layout is its operator's) and mapped addresses never travel: refused whole.
    t.truthy(covered(embed.localNat64(bytes(address))));
    t.truthy(covered(embed.mapped(bytes(address))));
  }
});

test('every network the guard names is covered: its first and last address are refused by both', (t) => {
  for (const cidr of refused) {
    const [first, bits] = ipaddr.parseCIDR(cidr);
    const raw = first.toByteArray();
    const last = raw.map((byte, i) => {
      const hostBits = Math.max(0, Math.min(8, (i + 1) * 8 - bits));
      return byte | ((1 << hostBits) - 1);
    });
    for (const address of [first.toString(), ipaddr.fromByteArray(last).toString()]) {
      t.truthy(covered(address), `${address} in ${cidr}`);
      if (cidr === '::ffff:0:0/96' || cidr === '64:ff9b:1::/48') continue; // refused whole, see above
      t.truthy(refusalReason(address, strict), `the guard refuses ${address} (${cidr})`);
    }
  }
});

test('translatedForms gives the NAT64, 6to4 and IPv4-compatible prefixes of a network', (t) => {
  t.deepEqual(translatedForms('10.0.0.0/8'), ['64:ff9b::a00:0/104', '2002:a00::/24', '::a00:0/104']);
  t.deepEqual(translatedForms('169.254.169.254/32'), ['64:ff9b::a9fe:a9fe/128', '2002:a9fe:a9fe::/48', '::a9fe:a9fe/128']);
});

test('an allowed network may open a private range, never one inside a never-reached one (translated forms included)', (t) => {
  t.notThrows(() => checkWorkloadNetworks(['10.20.0.0/16', 'fd00:1::/64', '64:ff9b:1::/48'], 'allowed'));
  for (const cidr of ['127.0.0.0/8', '169.254.169.254/32', '64:ff9b::a9fe:a9fe/128', '2002:7f00::/24', '::ffff:0:0/96', '192.0.2.0/24']) {
    t.throws(() => checkWorkloadNetworks([cidr], 'allowed'), { message: /which workloads never reach/ }, cidr);
  }
});
