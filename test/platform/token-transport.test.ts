import test from 'ava';
import { parseNetworks } from '../../platform/address-guard';
import { tokenTransportRefusal, urlTokenTransportRefusal } from '../../platform/token-transport';

// Only literal addresses: nothing here resolves a name or contacts an address.
const open = { blockPrivateNetworks: false };
const blocked = { blockPrivateNetworks: true };
const listed = { blockPrivateNetworks: true, allowedPrivateNetworks: parseNetworks('10.20.0.0/16,fd00:1::/64,203.0.113.0/24') };
const everyPolicy = [open, blocked, listed];

test('over https a token may go anywhere: where requests may go is the address policy\'s to say', (t) => {
  for (const policy of everyPolicy) {
    for (const a of ['93.184.216.34', '10.0.0.1', '127.0.0.1', '2606:4700::1', '64:ff9b::5db8:d822']) t.is(tokenTransportRefusal('https:', a, policy), null, a);
  }
});

test('over plain http a token may go to loopback under every policy', (t) => {
  for (const policy of everyPolicy) {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) t.is(tokenTransportRefusal('http:', a, policy), null, a);
  }
});

test('over plain http a token may go to any private address while private networks are not blocked', (t) => {
  for (const a of ['10.0.0.1', '172.16.5.4', '192.168.1.1', 'fd12::1', '100.64.0.1', '::ffff:10.0.0.1']) {
    t.is(tokenTransportRefusal('http:', a, open), null, a);
    t.regex(tokenTransportRefusal('http:', a, blocked) ?? '', /not sent over plain http/, `${a} once private networks are blocked`);
  }
});

test('over plain http a token may go to an allowed network only, while private networks are blocked', (t) => {
  for (const a of ['10.20.0.1', '10.20.255.254', 'fd00:1::7', '::ffff:10.20.1.1', '203.0.113.9']) t.is(tokenTransportRefusal('http:', a, listed), null, a);
  for (const a of ['10.21.0.1', '192.168.1.1', 'fd00:2::1', '100.64.0.1']) {
    t.regex(tokenTransportRefusal('http:', a, listed) ?? '', /CONNECTOR__ALLOWED_PRIVATE_NETWORKS/, a);
  }
});

test('over plain http a token never goes to a public address, nor through a translator or a tunnel', (t) => {
  const elsewhere = [
    '93.184.216.34', '192.0.2.10', '8.8.8.8', '2606:4700::1', '::ffff:93.184.216.34',
    '64:ff9b::a00:1', // NAT64 of 10.0.0.1: the packet crosses the translator
    '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
    '2002:a00:1::1', // 6to4 of 10.0.0.1
    '2001:0:a00:1::1', // Teredo
    '::a00:1', // IPv4-compatible 10.0.0.1
  ];
  for (const policy of everyPolicy) {
    for (const a of elsewhere) t.regex(tokenTransportRefusal('http:', a, policy) ?? '', /not sent over plain http/, a);
  }
});

test('a scheme other than http or https carries no token', (t) => {
  t.regex(tokenTransportRefusal('ws:', '127.0.0.1', open) ?? '', /only sent over https or http/);
});

test('the URL form decides on literals without resolving anything', async (t) => {
  t.is(await urlTokenTransportRefusal(new URL('https://192.0.2.10/mcp'), blocked), null);
  t.is(await urlTokenTransportRefusal(new URL('http://127.0.0.1:9/mcp'), blocked), null);
  t.is(await urlTokenTransportRefusal(new URL('http://[::1]:9/mcp'), blocked), null);
  t.is(await urlTokenTransportRefusal(new URL('http://10.20.0.5/mcp'), listed), null);
  t.regex(await urlTokenTransportRefusal(new URL('http://192.0.2.10/mcp'), open) ?? '', /192\.0\.2\.10/);
  t.regex(await urlTokenTransportRefusal(new URL('http://[64:ff9b::a00:1]/mcp'), open) ?? '', /64:ff9b::a00:1/);
});
