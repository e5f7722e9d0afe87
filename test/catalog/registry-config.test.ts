// CONNECTOR__REGISTRY_*: validated at start-up; a bad value stops the service naming the
// variable, the entry and the field.
import test from 'ava';
import { loadConfig } from '../../config/config';

const env = (extra: Record<string, string>) => ({ HOST: '127.0.0.1', ...extra });

test('without CONNECTOR__REGISTRY_URL there is no registry', (t) => {
  t.is(loadConfig(env({})).registry, null);
});

test('a registry with its allow-list, pins and overlays; 60 minutes by default', (t) => {
  const c = loadConfig(env({
    CONNECTOR__REGISTRY_URL: 'https://registry.modelcontextprotocol.io/',
    CONNECTOR__REGISTRY_SERVERS: JSON.stringify([
      { name: 'io.github.example/weather-mcp', version: '0.5.0', overlay: { allow_package_fetch: true, allowed_networks: ['10.20.0.0/16'] } },
      { name: 'com.example/acme-analytics', overlay: { client_id: 'cid', client_secret: 's', metadata: { name: 'ACME' }, resources: { limits: { cpu: '500m' } } } },
    ]),
  }));
  t.is(c.registry?.url, 'https://registry.modelcontextprotocol.io');
  t.is(c.registry?.syncMinutes, 60);
  t.is(c.registry?.servers[0]?.version, '0.5.0');
  t.is(c.registry?.servers[1]?.overlay?.client_id, 'cid');
  t.is(loadConfig(env({ CONNECTOR__REGISTRY_URL: 'https://r.example', CONNECTOR__REGISTRY_SERVERS: '[]', CONNECTOR__REGISTRY_SYNC_MINUTES: '5' })).registry?.syncMinutes, 5);
});

test('bad values name the variable, the entry and the field', (t) => {
  const bad = (extra: Record<string, string>) => t.throws(() => loadConfig(env({ CONNECTOR__REGISTRY_URL: 'https://r.example', CONNECTOR__REGISTRY_SERVERS: '[]', ...extra })))!.message;
  t.regex(bad({ CONNECTOR__REGISTRY_URL: 'ftp://r.example' }), /CONNECTOR__REGISTRY_URL: must be an http\(s\) URL/);
  t.regex(bad({ CONNECTOR__REGISTRY_URL: 'https://u:p@r.example' }), /CONNECTOR__REGISTRY_URL: must carry no credentials/);
  t.regex(bad({ CONNECTOR__REGISTRY_SERVERS: '{' }), /CONNECTOR__REGISTRY_SERVERS: not valid JSON/);
  t.regex(bad({ CONNECTOR__REGISTRY_SERVERS: '{}' }), /must be a JSON array/);
  t.regex(bad({ CONNECTOR__REGISTRY_SERVERS: '[{"name":"no-slash"}]' }), /entry 0 \(no-slash\), field name/);
  t.regex(bad({ CONNECTOR__REGISTRY_SERVERS: '[{"name":"a.b/c","version":"latest"}]' }), /field version: leave version out/);
  t.regex(bad({ CONNECTOR__REGISTRY_SERVERS: '[{"name":"a.b/c","overlay":{"client_secret":"s"}}]' }), /field overlay.client_secret: client_secret requires client_id/);
  t.regex(bad({ CONNECTOR__REGISTRY_SERVERS: '[{"name":"a.b/c","overlay":{"allowed_networks":["not-a-cidr"]}}]' }), /field overlay.allowed_networks/);
  t.regex(bad({ CONNECTOR__REGISTRY_SERVERS: '[{"name":"a.b/c","overlay":{"env":{"A":"b"}}}]' }), /field overlay/);
  t.regex(bad({ CONNECTOR__REGISTRY_SERVERS: '[{"name":"a.b/c"},{"name":"a.b/c"}]' }), /listed twice/);
  t.regex(bad({ CONNECTOR__REGISTRY_SYNC_MINUTES: '0' }), /CONNECTOR__REGISTRY_SYNC_MINUTES: must be a whole number/);
  t.regex(bad({ CONNECTOR__REGISTRY_SYNC_MINUTES: '1.5' }), /CONNECTOR__REGISTRY_SYNC_MINUTES/);
  t.regex(t.throws(() => loadConfig(env({ CONNECTOR__REGISTRY_URL: 'https://r.example' })))!.message, /CONNECTOR__REGISTRY_SERVERS: required/);
  t.regex(t.throws(() => loadConfig(env({ CONNECTOR__REGISTRY_SERVERS: '[]' })))!.message, /needs CONNECTOR__REGISTRY_URL/);
});
