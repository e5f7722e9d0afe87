import test from 'ava';
import { BlockedAddressError, checkHost, guardedLookup, isPrivateAddress, parseNetworks, refusalReason } from '../../platform/address-guard';

const open = { blockPrivateNetworks: false };
const strict = { blockPrivateNetworks: true };

// Only literal addresses: nothing here resolves a name or contacts an address.
test('link-local and cloud metadata addresses are always refused', (t) => {
  for (const a of ['169.254.169.254', '169.254.0.1', 'fe80::1', 'fd00:ec2::254', '::ffff:169.254.169.254', '0.0.0.0', '224.0.0.1']) {
    t.truthy(refusalReason(a, open), a);
  }
});

test('loopback and private ranges are allowed by default and refused by configuration', (t) => {
  for (const a of ['127.0.0.1', '::1', '10.1.2.3', '192.168.1.1', '172.16.0.1', 'fd12::1', '100.64.0.1']) {
    t.is(refusalReason(a, open), null, a);
    t.truthy(refusalReason(a, strict), a);
  }
  t.is(refusalReason('93.184.216.34', strict), null);
});

test('checkHost refuses a literal metadata address without contacting it', async (t) => {
  const err = await t.throwsAsync(checkHost('169.254.169.254', open));
  t.true(err instanceof BlockedAddressError);
  await t.throwsAsync(checkHost('[fd00:ec2::254]', open), { instanceOf: BlockedAddressError });
  t.deepEqual(await checkHost('127.0.0.1', open), ['127.0.0.1']);
});

test('addresses that embed an IPv4 address are judged by it: NAT64, 6to4, Teredo, IPv4-compatible, IPv4-mapped', (t) => {
  const metadataInside = [
    '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
    '64:ff9b:1::a9fe:a9fe', // local-use NAT64, /96 layout
    '64:ff9b:1:a9fe:a9:fe00::', // local-use NAT64, RFC 6052 /48 layout
    '2002:a9fe:a9fe::1', // 6to4
    '2001:0:a9fe:a9fe::1', // Teredo server
    '2001:0:4136:e378:8000:63bf:5601:5601', // Teredo client 169.254.169.254, stored inverted
    '::a9fe:a9fe', // IPv4-compatible
    '::ffff:a9fe:a9fe', // IPv4-mapped
    '64:ff9b::6464:64c8', // NAT64 of 100.100.100.200
  ];
  for (const a of metadataInside) t.regex(refusalReason(a, open) ?? '', /embedding|metadata|linkLocal/, a);
  t.regex(refusalReason('100.100.100.200', open) ?? '', /metadata/, 'a cloud metadata address outside link-local');
  t.regex(refusalReason('100.64.0.1', strict) ?? '', /carrierGradeNat/);
  t.regex(refusalReason('64:ff9b::a00:1', strict) ?? '', /embedding 10\.0\.0\.1/, 'a private address behind NAT64 under the private policy');
  t.is(refusalReason('64:ff9b::a00:1', open), null, 'and allowed where private networks are');
  t.is(refusalReason('64:ff9b::5db8:d822', strict), null, 'a public address behind NAT64 is fine');
  t.is(refusalReason('2002:5db8:d822::1', strict), null);
  t.is(refusalReason('::1', open), null, '::1 is loopback, not an IPv4-compatible 0.0.0.1');
});

test('an IPv4-translated address (::ffff:0:a.b.c.d, RFC 6145) is judged as the IPv4 address inside', (t) => {
  for (const a of ['::ffff:0:a9fe:a9fe', '::ffff:0:169.254.169.254', '0:0:0:0:ffff:0:a9fe:a9fe', '::ffff:0:6464:64c8']) {
    t.regex(refusalReason(a, open) ?? '', /linkLocal|metadata/, a);
    t.regex(refusalReason(a, strict) ?? '', /linkLocal|metadata/, `${a} with private networks blocked`);
  }
  for (const a of ['::ffff:0:a00:1', '::ffff:0:7f00:1']) {
    t.is(refusalReason(a, open), null, a);
    t.regex(refusalReason(a, strict) ?? '', /private|loopback/, a);
  }
  t.is(refusalReason('::ffff:0:5db8:d822', strict), null, 'a public address inside is fine');
  t.true(isPrivateAddress('::ffff:0:a00:1'));
  const listed = { blockPrivateNetworks: true, allowedPrivateNetworks: parseNetworks('10.20.0.0/16') };
  t.is(refusalReason('::ffff:0:a14:1', listed), null, 'the allowed networks apply to the address inside');
  t.deepEqual(parseNetworks('::ffff:0:10.20.0.0/112'), ['10.20.0.0/16']);
});

test('site-local (fec0::/10) counts as private; discard-only (100::/64) and the other unroutable IPv6 blocks are never contacted', (t) => {
  for (const a of ['fec0::1', 'feff:ffff::1', '5f00::1']) {
    t.is(refusalReason(a, open), null, a);
    t.truthy(refusalReason(a, strict), a);
    t.true(isPrivateAddress(a), a);
  }
  for (const a of ['100::', '100::1', '100::ffff:ffff:ffff:ffff', '2001:2::1', '2001:10::1', '2001:20::1', '2001:30::1']) {
    t.regex(refusalReason(a, open) ?? '', /never contacted/, a);
  }
  t.is(refusalReason('100:0:0:1::1', strict), null, 'just past the discard block (a global unicast address)');
});

test('every other known IPv4-in-IPv6 embedding is judged by the IPv4 address inside', (t) => {
  const inside = (a: string, policy = open) => refusalReason(a, policy) ?? '';
  // local-use NAT64 (64:ff9b:1::/48) at each RFC 6052 length that fits: /48, /56, /64, /96.
  for (const a of ['64:ff9b:1:a9fe:a9:fe00::', '64:ff9b:1:a9:fe:a9fe::', '64:ff9b:1:0:a9:fea9:fe00:0', '64:ff9b:1::a9fe:a9fe', '64:ff9b:1:a9fe:a9:fe00:0:1']) {
    t.regex(inside(a), /embedding 169\.254\.169\.254/, a);
  }
  t.is(refusalReason('64:ff9b:1::5db8:d822', strict), null, 'a public address behind local-use NAT64 (/96) is fine: no layout reads a refused one');
  t.regex(inside('64:ff9b:1::a00:1', strict), /embedding 10\.0\.0\.1/);
  t.regex(inside('64:ff9b:1::', open), /never contacted/, 'nothing but 0.0.0.0 inside');
  // ISATAP, with and without the u bit, behind any prefix.
  for (const a of ['2001:db9::5efe:a9fe:a9fe', '2606:4700::200:5efe:a9fe:a9fe']) t.regex(inside(a), /embedding 169\.254\.169\.254/, a);
  t.regex(inside('2606:4700::5efe:a00:1', strict), /embedding 10\.0\.0\.1/, 'an ISATAP host on a private IPv4 network');
  // Teredo client inverted, 6to4 and IPv4-compatible under the private policy.
  t.regex(inside('2001:0:5db8:d822:0:0:f5ff:fffe', strict), /embedding 10\.0\.0\.1/, 'Teredo client 10.0.0.1');
  t.regex(inside('2002:c0a8:101::1', strict), /embedding 192\.168\.1\.1/);
  t.regex(inside('::a00:1', strict), /embedding 10\.0\.0\.1/);
  // Nothing is read into an address that merely looks alike.
  for (const a of ['2606:4700::1:5efe:a9fe:a9fe', '64:ff9b:2::a9fe:a9fe', '2003::a9fe:a9fe', '::ffff:1:a9fe:a9fe']) t.is(refusalReason(a, open), null, a);
});

test('an allowed network lets private addresses through while private networks are blocked, and nothing always refused', (t) => {
  const listed = { blockPrivateNetworks: true, allowedPrivateNetworks: parseNetworks('10.20.0.0/16, 127.0.0.0/8, fd00:1::/64, 100.64.0.0/10, 169.254.0.0/16, 192.0.2.0/24, fe80::/10') };
  for (const a of ['10.20.3.4', '127.0.0.1', '127.9.9.9', 'fd00:1::5', '::ffff:10.20.0.1', '100.64.0.1', '64:ff9b::a14:304', '2002:a14:304::1']) {
    t.is(refusalReason(a, listed), null, a);
  }
  for (const a of ['10.21.0.1', '192.168.1.1', '::1', 'fd00:2::1', '64:ff9b::a15:1', '2002:c0a8:101::1']) {
    t.regex(refusalReason(a, listed) ?? '', /CONNECTOR__BLOCK_PRIVATE_NETWORKS/, a);
  }
  for (const a of ['169.254.169.254', '169.254.0.1', '100.100.100.200', '192.0.2.10', 'fe80::1', '64:ff9b::a9fe:a9fe', '::ffff:169.254.169.254']) {
    t.regex(refusalReason(a, listed) ?? '', /never contacted|metadata/, `${a} stays refused although listed`);
  }
  t.is(refusalReason('10.21.0.1', { ...listed, blockPrivateNetworks: false }), null, 'the list only matters while private networks are blocked');
});

test('100.64.0.0/10 (CGNAT) counts as private', (t) => {
  for (const a of ['100.64.0.1', '100.127.255.254', '::ffff:100.64.0.1']) t.regex(refusalReason(a, strict) ?? '', /carrierGradeNat/, a);
  t.is(refusalReason('100.128.0.1', strict), null, 'just past the range');
  t.true(isPrivateAddress('100.64.0.1'));
});

test('parseNetworks reads IPv4 and IPv6 CIDRs and bare addresses, normalised, and names what it cannot read', (t) => {
  t.deepEqual(parseNetworks(' 10.20.0.0/16 ,fd00:1:0::/64,127.0.0.1, ::1 ,10.1.2.3/8,::ffff:192.168.0.0/112,'), [
    '10.20.0.0/16', 'fd00:1::/64', '127.0.0.1/32', '::1/128', '10.0.0.0/8', '192.168.0.0/16',
  ]);
  t.deepEqual(parseNetworks(''), []);
  for (const bad of ['10.0.0.0/33', 'fd00::/129', 'ten.0.0.0/8', '10.0.0/8', 'fe80::1%eth0/64', '10.0.0.0/', 'localhost', '010.0.0.1/32']) {
    t.throws(() => parseNetworks(`10.0.0.0/8,${bad}`), { message: new RegExp(bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')) }, bad);
  }
});

test('checkHost honours the allowed networks for literals without contacting them', async (t) => {
  const listed = { blockPrivateNetworks: true, allowedPrivateNetworks: ['127.0.0.0/8'] };
  t.deepEqual(await checkHost('127.0.0.1', listed), ['127.0.0.1']);
  await t.throwsAsync(checkHost('[::1]', listed), { instanceOf: BlockedAddressError, message: /loopback/ });
});

test('guardedLookup applies a further rule of the caller\'s to every address (literals resolve without DNS)', async (t) => {
  const lookup = guardedLookup(open, (address) => (address.startsWith('93.') ? 'not this one' : null));
  const resolve = (host: string) => new Promise<string>((ok, fail) => lookup(host, {}, (err, address) => (err ? fail(err) : ok(address as string))));
  await t.throwsAsync(resolve('93.184.216.34'), { instanceOf: BlockedAddressError, message: /not this one/ });
  t.is(await resolve('127.0.0.1'), '127.0.0.1');
  await t.throwsAsync(resolve('169.254.169.254'), { message: /linkLocal/ }, 'the policy still comes first');
});
