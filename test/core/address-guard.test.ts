import test from 'ava';
import { BlockedAddressError, checkHost, refusalReason } from '../../core/address-guard';

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
