// The catalog: env presets win over registry presets with the same URL; deleted registry servers
// disappear, deprecated ones are marked; a registry stdio preset runs only with its version approved;
// the list never shows credentials or env values.
import test from 'ava';
import { approvalRefusal, catalogOf, publicCatalogEntry, usablePresets, type StoredRegistryEntry } from '../../catalog/preset-catalog';
import { entryOf, ServerResponseSchema, type RegistryStatus } from '../../catalog/server-json';
import { realServers } from '../fixtures/registry/registry-server';

const real = realServers();
const stored = (doc: unknown, status: RegistryStatus = 'active', refused: string | null = null): StoredRegistryEntry =>
  ({ ...entryOf(ServerResponseSchema.parse({ server: doc })), status, refused });

const overlays = new Map([
  ['com.example/acme-analytics', { client_id: 'acme-client', client_secret: 'acme-secret' }],
  ['io.github.example/weather-mcp', { allow_package_fetch: true }],
]);

test('env presets win over a registry preset with the same URL; deleted entries disappear', (t) => {
  const catalog = catalogOf({
    env: [{ url: 'https://analytics.example.com/mcp', metadata: { name: 'Ours' } }],
    entries: [stored(real['acme-analytics']), stored(real['mcp-fs'], 'deleted'), stored(real['kubernetes-manager-mcp'])],
    overlays, approvals: [],
  });
  t.deepEqual(catalog.map((c) => [c.source, c.preset?.url]), [
    ['env', 'https://analytics.example.com/mcp'],
    ['registry', 'mcp+stdio://io.github.username/kubernetes-manager-mcp'],
  ]);
});

test('a registry stdio preset runs only once its version is approved; an approval of another version does not count', (t) => {
  const entries = [stored(real['kubernetes-manager-mcp'])];
  const url = 'mcp+stdio://io.github.username/kubernetes-manager-mcp';
  const none = catalogOf({ env: [], entries, overlays, approvals: [] });
  t.regex(approvalRefusal(none, url)!, /runs only after an admin approved this version/);
  const old = catalogOf({ env: [], entries, overlays, approvals: [{ name: 'io.github.username/kubernetes-manager-mcp', version: '0.9.0', approvedBy: 'key:admin', approvedAt: 'x' }] });
  t.truthy(approvalRefusal(old, url));
  const approved = catalogOf({ env: [], entries, overlays, approvals: [{ name: 'io.github.username/kubernetes-manager-mcp', version: '1.0.0', approvedBy: 'key:admin', approvedAt: 'x' }] });
  t.is(approvalRefusal(approved, url), null);
  t.is(approvalRefusal(approved, 'https://mcp.stripe.com'), null, 'env and remote presets need no approval');
  t.true(publicCatalogEntry(approved[0]!, 'container').approved);
});

test('the list: source, version, runnable with reason, deprecated, and never credentials or env values', (t) => {
  const catalog = catalogOf({
    env: [{ url: 'https://mcp.stripe.com/', metadata: { name: 'Stripe' }, client_id: 'env-client', client_secret: 'env-secret' }],
    entries: [
      stored(real['acme-analytics'], 'deprecated'), stored(real['weather-mcp']), stored(real['hybrid-mcp']),
      stored({ ...real['mcp-fs'], remotes: [{ type: 'streamable-http', url: 'https://169.254.169.254/mcp' }] }, 'active', 'its remote URL is refused: a cloud metadata address'),
    ],
    overlays, approvals: [],
  });
  const shown = catalog.map((c) => publicCatalogEntry(c, 'local'));
  const text = JSON.stringify(shown);
  for (const secret of ['env-client', 'env-secret', 'acme-client', 'acme-secret', 'celsius']) t.false(text.includes(secret), secret);
  t.like(shown[0], { source: 'env', version: null, runnable: true });
  t.like(shown[1], { source: 'registry', name: 'com.example/acme-analytics', version: '2.0.0', deprecated: true, runnable: true });
  t.false('approved' in shown[1]!, 'a remote preset needs no approval');
  t.like(shown[2], { source: 'registry', version: '0.5.0', runnable: true, approved: false, stdio: { image: 'ghcr.io/astral-sh/uv:python3.12-alpine' } });
  t.like(publicCatalogEntry(catalog[2]!, 'container'), { runnable: false });
  t.regex(publicCatalogEntry(catalog[2]!, 'container').reason!, /local runtime only/);
  t.like(shown[3], { runnable: false, metadata: { name: 'Hybrid' } }, 'a preset that cannot run still shows what it is');
  t.regex(shown[3]!.reason!, /X-API-Key/);
  t.like(shown[4], { runnable: false, reason: 'its remote URL is refused: a cloud metadata address' });
  t.deepEqual(usablePresets(catalog).map((p) => p.url), ['https://mcp.stripe.com/', 'https://analytics.example.com/mcp', 'mcp+stdio://io.github.example/weather-mcp']);
});
