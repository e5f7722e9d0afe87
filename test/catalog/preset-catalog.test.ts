// The catalog: env presets win over registry presets with the same URL; deleted registry servers
// disappear, deprecated ones are marked; a registry stdio preset runs only with its version and run
// approved; the list never shows credentials or an env preset's env values.
import test from 'ava';
import { approvalRefusal, catalogOf, publicCatalogEntry, usablePresets, type PresetApproval, type StoredRegistryEntry } from '../../catalog/preset-catalog';
import { registryPreset } from '../../catalog/registry-presets';
import { entryOf, ServerResponseSchema, type RegistryStatus } from '../../catalog/server-json';
import { realServers } from '../fixtures/registry/registry-server';

const real = realServers();
const stored = (doc: unknown, status: RegistryStatus = 'active', refused: string | null = null): StoredRegistryEntry =>
  ({ ...entryOf(ServerResponseSchema.parse({ server: doc })), status, refused });

const overlays = new Map([
  ['com.example/acme-analytics', { client_id: 'acme-client', client_secret: 'acme-secret' }],
  ['io.github.example/weather-mcp', { allow_package_fetch: true }],
  ['io.github.username/kubernetes-manager-mcp', { immutable_image_tags: true }],
]);

/** An admin's approval of the entry as it is (or of another version, for the tests that need one). */
function approvalOf(entry: StoredRegistryEntry, version = entry.version): PresetApproval {
  const p = registryPreset(entry, overlays.get(entry.name));
  return { name: entry.name, version, digest: p.digest!, run: p.run!, approvedBy: 'key:admin', approvedAt: 'x' };
}

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
  const old = catalogOf({ env: [], entries, overlays, approvals: [approvalOf(entries[0]!, '0.9.0')] });
  t.truthy(approvalRefusal(old, url));
  t.regex(approvalRefusal(old, url)!, /version: 0\.9\.0 → 1\.0\.0/, 'the refusal says what changed');
  const approved = catalogOf({ env: [], entries, overlays, approvals: [approvalOf(entries[0]!)] });
  t.is(approvalRefusal(approved, url), null);
  t.is(approvalRefusal(approved, 'https://mcp.stripe.com'), null, 'env and remote presets need no approval');
  t.like(publicCatalogEntry(approved[0]!, 'container'), { approved: true, approved_by: 'key:admin', digest: approvalOf(entries[0]!).digest });
  const republished = stored({ ...real['kubernetes-manager-mcp'], packages: [{ registryType: 'oci', identifier: 'docker.io/other/image:1.0.0', transport: { type: 'stdio' } }] });
  const changed = catalogOf({ env: [], entries: [republished], overlays, approvals: [approvalOf(entries[0]!)] });
  t.truthy(approvalRefusal(changed, url), 'the same version with another image is not approved');
  t.like(publicCatalogEntry(changed[0]!, 'container'), {
    approved: false, changes: ['identifier: docker.io/yourusername/kubernetes-manager-mcp:1.0.0 → docker.io/other/image:1.0.0'],
    run: { registry_type: 'oci', identifier: 'docker.io/other/image:1.0.0', command: null, args: [], env: {} },
  });
});

test('the list: source, version, runnable with reason, deprecated, and never credentials or an env preset\'s env values', (t) => {
  const catalog = catalogOf({
    env: [
      { url: 'https://mcp.stripe.com/', metadata: { name: 'Stripe' }, client_id: 'env-client', client_secret: 'env-secret' },
      { url: 'mcp+stdio://ours', stdio: { image: 'ours:1', env: { OUR_KEY: 'env-preset-value' } } },
    ],
    entries: [
      stored(real['acme-analytics'], 'deprecated'), stored(real['weather-mcp']), stored(real['hybrid-mcp']),
      stored({ ...real['mcp-fs'], remotes: [{ type: 'streamable-http', url: 'https://169.254.169.254/mcp' }] }, 'active', 'its remote URL is refused: a cloud metadata address'),
    ],
    overlays, approvals: [],
  });
  const shown = catalog.map((c) => publicCatalogEntry(c, 'local'));
  const text = JSON.stringify(shown);
  for (const secret of ['env-client', 'env-secret', 'acme-client', 'acme-secret', 'env-preset-value']) t.false(text.includes(secret), secret);
  shown.splice(1, 1);
  catalog.splice(1, 1);
  t.like(shown[0], { source: 'env', version: null, runnable: true });
  t.like(shown[1], { source: 'registry', name: 'com.example/acme-analytics', version: '2.0.0', deprecated: true, runnable: true });
  t.false('approved' in shown[1]!, 'a remote preset needs no approval');
  t.like(shown[2], { source: 'registry', version: '0.5.0', runnable: true, approved: false, stdio: { image: 'ghcr.io/astral-sh/uv:python3.12-alpine' } });
  t.deepEqual(shown[2]!.run?.env, { WEATHER_API_KEY: "(the connect's access_token)", WEATHER_UNITS: 'celsius' },
    "a registry preset's run shows the registry's own values, for the admin who approves it");
  t.like(publicCatalogEntry(catalog[2]!, 'container'), { runnable: false });
  t.regex(publicCatalogEntry(catalog[2]!, 'container').reason!, /local runtime only/);
  t.like(shown[3], { runnable: true, metadata: { name: 'Hybrid' } }, 'a remote that asks for headers runs: a connect supplies them');
  t.deepEqual(shown[3]!.fields?.map((f) => [f.name, f.in, f.secret]), [['X-API-Key', 'header', true], ['X-Region', 'header', false]]);
  t.like(shown[4], { runnable: false, reason: 'its remote URL is refused: a cloud metadata address' }, 'a preset that cannot run still shows what it is');
  t.deepEqual(usablePresets(catalog).map((p) => p.url), [
    'https://mcp.stripe.com/', 'https://analytics.example.com/mcp', 'mcp+stdio://io.github.example/weather-mcp', 'https://mcp.anonymous.modelcontextprotocol.io/http',
  ]);
});
