// The mapping of registry entries to presets, on the registry's own example documents (copied as
// data) and on hostile ones: what runs, what does not and why, and that nothing from the registry
// can become a shell line, a flag of the container engine or an unchecked URL.
import test from 'ava';
import { registryPreset, type RegistryPreset } from '../../catalog/registry-presets';
import type { RegistryOverlay } from '../../catalog/registry-config';
import { entryOf, ServerResponseSchema, type RegistryEntry } from '../../catalog/server-json';
import { HOSTILE } from '../fixtures/registry/hostile';
import { realServers } from '../fixtures/registry/registry-server';

const real = realServers();

function entry(server: unknown, status = 'active'): RegistryEntry {
  const parsed = ServerResponseSchema.parse({ server, _meta: { 'io.modelcontextprotocol.registry/official': { status, updatedAt: '2026-01-01T00:00:00Z', isLatest: true } } });
  return entryOf(parsed);
}

const map = (server: unknown, overlay?: RegistryOverlay): RegistryPreset => registryPreset(entry(server), overlay);

test('every real document parses, and the wrapper\'s status and time are read', (t) => {
  t.true(Object.keys(real).length >= 10);
  for (const [file, doc] of Object.entries(real)) t.true(ServerResponseSchema.safeParse({ server: doc }).success, file);
  const e = entry(real['mcp-fs'], 'deprecated');
  t.is(e.status, 'deprecated');
  t.is(e.updatedAt, '2026-01-01T00:00:00Z');
  t.is(entry(real['mcp-fs'], 'something-new').status, 'active', 'an unknown status reads as active');
});

test('a streamable-http remote becomes a remote preset on its URL, with the overlay\'s OAuth client and display', (t) => {
  const p = map(real['mcp-fs'], { client_id: 'cid', client_secret: 'csecret', metadata: { name: 'Files' } });
  t.is(p.kind, 'remote');
  t.is(p.reason, null);
  t.deepEqual(p.preset, {
    url: 'https://mcp-fs.anonymous.modelcontextprotocol.io/http',
    metadata: { name: 'Files', description: 'Cloud-hosted MCP filesystem server' },
    client_id: 'cid', client_secret: 'csecret',
  });
  t.is(p.version, '2.0.0');
  const acme = map(real['acme-analytics']);
  t.is(acme.preset?.url, 'https://analytics.example.com/mcp', 'the streamable-http remote is chosen over the SSE one');
  t.is(acme.preset?.metadata?.name, 'ACME Analytics', 'the title is the display name');
  t.is(map(real['email-integration-mcp']).kind, 'remote', 'a remote wins over a package: it needs no approval and fetches no code');
});

test('a required secret header other than Authorization keeps a remote from running, and the list says which', (t) => {
  const p = map(real['hybrid-mcp']);
  t.is(p.preset, null);
  t.regex(p.reason!, /X-API-Key/);
  t.deepEqual(p.fields.map((f) => [f.name, f.in, f.secret]), [['X-API-Key', 'header', true], ['X-Region', 'header', false]]);
});

test('an Authorization: Bearer {token} header is the connect request\'s access_token', (t) => {
  const server = { ...real['acme-analytics'], remotes: [{ type: 'streamable-http', url: 'https://api.example.com/mcp', headers: [{ name: 'Authorization', value: 'Bearer {token}', isRequired: true, isSecret: true, variables: { token: { isSecret: true, isRequired: true } } }] }] };
  const p = map(server);
  t.truthy(p.preset);
  t.deepEqual(p.fields, [{ name: 'access_token', in: 'connect', secret: true, description: 'sent as Authorization: Bearer' }]);
});

test('URL template variables are fields a connect would supply, and the preset is not runnable yet', (t) => {
  const server = { ...real['acme-analytics'], remotes: [{ type: 'streamable-http', url: 'https://{tenant}.example.com/mcp', variables: { tenant: { description: 'Your tenant', isRequired: true } } }] };
  const p = map(server);
  t.is(p.preset, null);
  t.regex(p.reason!, /URL variable tenant/);
  t.deepEqual(p.fields, [{ name: 'tenant', in: 'url', secret: false, description: 'Your tenant' }]);
});

test('an SSE-only remote and an unsupported package are listed with the reason', (t) => {
  const sseOnly = map({ ...real['acme-analytics'], remotes: [{ type: 'sse', url: 'https://analytics.example.com/sse' }] });
  t.is(sseOnly.preset, null);
  t.regex(sseOnly.reason!, /SSE transport/);
  const mcpb = map(real['text-editor']);
  t.is(mcpb.preset, null);
  t.regex(mcpb.reason!, /mcpb packages are not supported/);
});

test('an oci package with stdio becomes a stdio preset on its image, named by the server', (t) => {
  const p = map(real['kubernetes-manager-mcp'], { resources: { limits: { memory: '256Mi' } } });
  t.is(p.kind, 'stdio');
  t.is(p.packageKind, 'oci');
  t.deepEqual(p.preset, {
    url: 'mcp+stdio://io.github.username/kubernetes-manager-mcp',
    metadata: { name: 'Kubernetes Manager', description: 'Deploy and manage Kubernetes resources' },
    stdio: { image: 'docker.io/yourusername/kubernetes-manager-mcp:1.0.0', resources: { limits: { memory: '256Mi' } } },
  });
});

test('required container engine arguments (a host mount) are never passed: the image is not runnable', (t) => {
  const fs = map(real.filesystem, { allow_package_fetch: true });
  t.is(fs.packageKind, 'npm', 'the npm package of the same server is taken instead, with the overlay\'s word');
  t.deepEqual(fs.preset?.stdio?.command, ['npx', '--yes', '@modelcontextprotocol/server-filesystem@1.0.2', '/Users/username/Desktop']);
  const withoutFetch = map(real.filesystem);
  t.is(withoutFetch.preset, null);
  t.regex(withoutFetch.reason!, /allow_package_fetch/);
  t.regex(withoutFetch.reason!, /container engine arguments \(--mount\)/);
  const db = map(real['database-manager']);
  t.is(db.preset, null, 'inputs nobody here can give (a database name, a user) keep it from running');
  t.regex(db.reason!, /argument database_name, environment variable DB_USERNAME/);
  const optional = map({ ...real['database-manager'], packages: [{ ...(real['database-manager']!.packages as object[])[0], packageArguments: [], environmentVariables: [] }] });
  t.deepEqual(optional.preset?.stdio, { image: 'docker.io/example/database-manager-mcp:3.1.0' }, 'optional engine arguments (--network host) are dropped, never passed');
});

test('npm and PyPI packages run through npx and uvx only with the overlay\'s word; a required secret env is the token', (t) => {
  const brave = map(real['brave-search'], { allow_package_fetch: true });
  t.deepEqual(brave.preset?.stdio, {
    image: 'docker.io/library/node:22-alpine',
    command: ['npx', '--yes', '@modelcontextprotocol/server-brave-search@1.0.2'],
    access_token_env_name: 'BRAVE_API_KEY',
  });
  t.deepEqual(brave.fields, [{ name: 'access_token', in: 'env', secret: true, description: 'injected as BRAVE_API_KEY' }]);
  const weather = map(real['weather-mcp'], { allow_package_fetch: true });
  t.deepEqual(weather.preset?.stdio?.command, ['uvx', 'weather-mcp-server==0.5.0']);
  t.deepEqual(weather.preset?.stdio?.env, { WEATHER_UNITS: 'celsius' });
  t.is(map(real['brave-search']).preset, null);
});

test('hostile packages: shell metacharacters are refused in names, versions and images, and stay single argv elements elsewhere', (t) => {
  const allow = { allow_package_fetch: true };
  t.regex(map(HOSTILE.shellyPackage, allow).reason!, /npm package name is malformed/);
  t.regex(map(HOSTILE.shellyVersion, allow).reason!, /no exact version/);
  t.regex(map(HOSTILE.shellyImage).reason!, /OCI image reference is malformed/);
  t.regex(map(HOSTILE.flagInjection).reason!, /not a plain --flag/);
  t.regex(map(HOSTILE.badEnvName).reason!, /environment variable name .* is malformed/);
  t.regex(map(HOSTILE.movingTag).reason!, /moving tag latest/);
  t.regex(map(HOSTILE.otherNpmRegistry, allow).reason!, /another registry/);
  const args = map(HOSTILE.shellyArguments, allow);
  // No shell ever reads these: the runtimes spawn argv arrays, so each value is one inert argument.
  t.deepEqual(args.preset?.stdio?.command, ['npx', '--yes', 'innocent-mcp@2.0.0', '$(curl http://169.254.169.254)', '; rm -rf ~ #']);
  t.deepEqual(args.preset?.stdio?.env, { NOTE: '`id` && echo $HOME' });
  t.false(['sh', 'bash', '/bin/sh', '-c'].some((s) => args.preset?.stdio?.command?.includes(s)));
});

test('hostile remotes: plain http off loopback, credentials in the URL and other schemes are refused', (t) => {
  t.regex(map(HOSTILE.plainHttpRemote).reason!, /not https/);
  t.regex(map(HOSTILE.credentialsInUrl).reason!, /credentials/);
  t.regex(map(HOSTILE.javascriptUrl).reason!, /scheme javascript is not supported/);
  t.truthy(map({ ...HOSTILE.plainHttpRemote, remotes: [{ type: 'streamable-http', url: 'http://127.0.0.1:9/mcp' }] }).preset, 'plain http on loopback (a local test registry) is allowed');
});

test('the schema refuses wrong types, bad names, control characters and oversize fields', (t) => {
  for (const doc of [HOSTILE.wrongTypes, HOSTILE.remoteUrlNotString, HOSTILE.badName, HOSTILE.controlCharacters, HOSTILE.oversize]) {
    t.false(ServerResponseSchema.safeParse({ server: doc }).success, String(doc.name));
  }
});

test('unknown fields with no security meaning are dropped, not refused (never stored)', (t) => {
  const parsed = ServerResponseSchema.parse({ server: { ...real['mcp-fs'], icons: [{ src: 'https://x/i.png' }], 'odd.key': 1 }, _meta: { 'vendor.ext': { a: 1 } } });
  t.false('icons' in parsed.server);
  t.false('odd.key' in parsed.server);
  t.false('_meta' in parsed.server, 'publisher metadata (dotted keys) never reaches the database');
});
