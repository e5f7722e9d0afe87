import test from 'ava';
import { loadConfig } from '../../core/config';

test('defaults', (t) => {
  const c = loadConfig({});
  t.is(c.port, 8080);
  t.is(c.host, '127.0.0.1');
  t.is(c.baseUrl, 'http://localhost:8080');
  t.is(c.dataDir, '.data');
  t.is(c.temporal.namespace, 'default');
  t.is(c.presets.length, 3);
  t.false(c.blockPrivateNetworks);
  t.is(c.encryptionKey, undefined);
});

test('BASE_URL follows PORT unless given', (t) => {
  t.is(loadConfig({ PORT: '9000' }).baseUrl, 'http://localhost:9000');
  t.is(loadConfig({ PORT: '9000', BASE_URL: 'https://reg.example.com/' }).baseUrl, 'https://reg.example.com');
});

test('a bad value stops start-up naming the variable', (t) => {
  const cases: Record<string, string> = {
    PORT: 'eighty', BASE_URL: 'ftp://x', TEMPORAL_ADDRESS: 'nohostport', MONGODB_URI: 'postgres://x',
    CONNECTOR__ENCRYPTION_KEY: 'short', CONNECTOR__PRESETS: '[{"url":"mcp+stdio://x"}]', LOG_LEVEL: 'loud',
    CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'maybe',
  };
  for (const [name, value] of Object.entries(cases)) {
    const err = t.throws(() => loadConfig({ [name]: value }), undefined, name);
    t.true(err!.message.startsWith(name), `${name}: ${err!.message}`);
  }
});

test('CONNECTOR__BLOCK_PRIVATE_NETWORKS=true is read', (t) => {
  t.true(loadConfig({ CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'true' }).blockPrivateNetworks);
});

test('CONNECTOR__ROUTE_LOAD_TIMEOUT_MS is read, bounded and defaults to 2 s', (t) => {
  t.is(loadConfig({}).routeLoadTimeoutMs, 2000);
  t.is(loadConfig({ CONNECTOR__ROUTE_LOAD_TIMEOUT_MS: '30000' }).routeLoadTimeoutMs, 30000);
  t.throws(() => loadConfig({ CONNECTOR__ROUTE_LOAD_TIMEOUT_MS: '5' }), { message: /CONNECTOR__ROUTE_LOAD_TIMEOUT_MS/ });
});
