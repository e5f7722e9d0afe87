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
