// The Host check of open mode (DNS rebinding): only exact loopback literals and BASE_URL's host
// pass; a DNS name that merely starts like a loopback address does not. And the separate
// metrics port's rule: addresses only.
import test from 'ava';
import { metricsHostRefusal, originRefusal } from '../../callers/request-origin';

const OPEN = { baseUrl: 'http://127.0.0.1:8080', allowedOrigins: [], authEnabled: false };
const refusedHost = (host: string | undefined) => originRefusal({ host }, OPEN) !== null;

test('open mode: exact loopback literals (with or without a port) and BASE_URL\'s host pass', (t) => {
  for (const host of ['127.0.0.1', '127.0.0.1:8080', '127.1.2.3:99', 'localhost', 'LOCALHOST:3000', '[::1]', '[::1]:8080']) {
    t.false(refusedHost(host), host);
  }
  t.is(originRefusal({ host: 'registry.internal:8080' }, { ...OPEN, baseUrl: 'http://registry.internal:8080' }), null, 'BASE_URL\'s own host');
});

test('open mode: a name that only looks like loopback, or a non-canonical address, is refused', (t) => {
  for (const host of [
    '127.attacker.example', '127.0.0.1.attacker.example', '127.0.0.1.nip.io:8080', 'localhost.attacker.example', 'attacker.example',
    '127.1', '0x7f.0.0.1', '127.000.000.001', '2130706433', '10.0.0.1', '[::ffff:127.0.0.1]', 'localhost.', '127.0.0.1:8080@evil', '[::1]:99999',
    '', undefined,
  ]) {
    t.true(refusedHost(host), String(host));
  }
});

test('with callers authenticated the Host is left to the credentials; Origin is checked either way', (t) => {
  t.is(originRefusal({ host: 'registry.example.com' }, { ...OPEN, authEnabled: true }), null);
  t.truthy(originRefusal({ host: '127.0.0.1', origin: 'http://127.attacker.example' }, OPEN));
});

test('the metrics port: any IP literal, localhost or BASE_URL\'s host; never another DNS name', (t) => {
  for (const host of ['10.1.2.3:9464', '127.0.0.1:9464', '[fd00::5]:9464', 'localhost:9464', 'registry.internal']) {
    t.is(metricsHostRefusal({ host }, 'http://registry.internal'), null, host);
  }
  for (const host of ['127.attacker.example:9464', 'attacker.example', '10.1.2.3.nip.io', '', undefined]) {
    t.truthy(metricsHostRefusal({ host }, 'http://registry.internal'), String(host));
  }
});

test('open loopback mode: localhost, 127.0.0.1 and [::1] on BASE_URL\'s port are one origin; another port or a name is not', (t) => {
  for (const baseUrl of ['http://localhost:8080', 'http://127.0.0.1:8080', 'http://[::1]:8080']) {
    for (const origin of ['http://localhost:8080', 'http://127.0.0.1:8080', 'http://[::1]:8080']) {
      t.is(originRefusal({ host: new URL(origin).host, origin }, { ...OPEN, baseUrl }), null, `${origin} under ${baseUrl}`);
    }
    for (const origin of ['http://localhost:8081', 'https://localhost:8080', 'http://127.0.0.2:8080', 'http://127.attacker.example:8080', 'null']) {
      t.truthy(originRefusal({ host: '127.0.0.1:8080', origin }, { ...OPEN, baseUrl }), `${origin} under ${baseUrl}`);
    }
  }
});

test('with callers authenticated, or a BASE_URL that is not on loopback, only BASE_URL\'s origin and the allowed ones pass', (t) => {
  const authenticated = { ...OPEN, baseUrl: 'http://localhost:8080', authEnabled: true };
  t.is(originRefusal({ host: 'localhost:8080', origin: 'http://localhost:8080' }, authenticated), null);
  t.truthy(originRefusal({ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080' }, authenticated), 'a credential could be replayed from any origin it reaches');
  t.is(originRefusal({ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080' }, { ...authenticated, allowedOrigins: ['http://127.0.0.1:8080'] }), null, 'unless allowed by name');
  t.truthy(originRefusal({ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080' }, { ...OPEN, baseUrl: 'http://registry.internal:8080' }));
});
