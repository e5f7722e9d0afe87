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

test('a remote\'s headers other than Authorization are fields a connect supplies: the preset runs, and declares them', (t) => {
  const p = map(real['hybrid-mcp']);
  t.is(p.reason, null);
  t.deepEqual(p.fields, [
    { name: 'X-API-Key', in: 'header', secret: true, required: true, description: 'API key for authentication' },
    { name: 'X-Region', in: 'header', secret: false, required: false, description: 'Service region', default: 'us-east-1' },
  ]);
  t.deepEqual(p.preset?.headers, [
    { name: 'X-API-Key', secret: true, required: true, description: 'API key for authentication' },
    { name: 'X-Region', secret: false, required: false, description: 'Service region', choices: ['us-east-1', 'eu-west-1', 'ap-southeast-1'], default: 'us-east-1' },
  ]);
});

test('the overlay fixes a header or a variable: no longer a field, never listed with its value', (t) => {
  const server = { ...real['hybrid-mcp'], remotes: [{ ...(real['hybrid-mcp'] as { remotes: object[] }).remotes[0], url: 'https://mcp.example.com/{tenant}/http', variables: { tenant: { isRequired: true } } }] };
  const p = map(server, { headers: { 'x-api-key': 'operator-key-123' }, variables: { tenant: 'acme' } });
  t.deepEqual(p.fields.map((f) => f.name), ['X-Region']);
  t.like(p.preset?.headers?.[0], { name: 'X-API-Key', secret: true, value: 'operator-key-123' });
  t.like(p.preset?.variables, { tenant: { value: 'acme' } });
  t.false(JSON.stringify(p.fields).includes('operator-key-123'));
});

test('what this service cannot send keeps a remote from running, and the list says which', (t) => {
  const remote = (extra: object) => map({ ...real['acme-analytics'], remotes: [{ type: 'streamable-http', url: 'https://api.example.com/{tenant}/mcp', ...extra }] });
  t.regex(remote({ headers: [{ name: 'Cookie', isSecret: true }] }).reason!, /header Cookie is a header the proxy owns/);
  t.regex(remote({ headers: [{ name: 'Authorization', value: 'Basic {creds}' }] }).reason!, /Authorization header is not a Bearer token/);
  t.regex(remote({ headers: [{ name: 'X-Sig', value: 'v1 {a}', variables: { a: { isRequired: true } } }] }).reason!, /value format with more than a blank/);
  t.regex(remote({ variables: { tenant: { isSecret: true } } }).reason!, /URL variable tenant is secret/);
  t.regex(remote({ variables: { tenant: { default: 'a/b' } } }).reason!, /not a DNS label or path segment/);
});

test('a header whose value is one blank, {api_key}, is the connect\'s header, secret when its variable is', (t) => {
  const p = map({ ...real['acme-analytics'], remotes: [{ type: 'streamable-http', url: 'https://api.example.com/mcp', headers: [{ name: 'X-Key', value: '{api_key}', variables: { api_key: { isSecret: true, isRequired: true } } }] }] });
  t.is(p.reason, null);
  t.deepEqual(p.fields, [{ name: 'X-Key', in: 'header', secret: true, required: true }]);
});

test('an Authorization: Bearer {token} header is the connect request\'s access_token', (t) => {
  const server = { ...real['acme-analytics'], remotes: [{ type: 'streamable-http', url: 'https://api.example.com/mcp', headers: [{ name: 'Authorization', value: 'Bearer {token}', isRequired: true, isSecret: true, variables: { token: { isSecret: true, isRequired: true } } }] }] };
  const p = map(server);
  t.truthy(p.preset);
  t.deepEqual(p.fields, [{ name: 'access_token', in: 'connect', secret: true, description: 'sent as Authorization: Bearer' }]);
});

test('URL template variables are fields a connect supplies, and the preset keeps the template', (t) => {
  const server = { ...real['acme-analytics'], remotes: [{ type: 'streamable-http', url: 'https://{tenant}.example.com/mcp', variables: { tenant: { description: 'Your tenant', isRequired: true } } }] };
  const p = map(server);
  t.is(p.reason, null);
  t.is(p.preset?.url, 'https://{tenant}.example.com/mcp');
  t.deepEqual(p.preset?.variables, { tenant: { required: true, description: 'Your tenant' } });
  t.deepEqual(p.fields, [{ name: 'tenant', in: 'url', secret: false, required: true, description: 'Your tenant' }]);
});

test('an SSE-only remote becomes a remote preset that speaks SSE; a Streamable HTTP remote is chosen over it', (t) => {
  const sseOnly = map({ ...real['acme-analytics'], remotes: [{ type: 'sse', url: 'https://analytics.example.com/sse' }] });
  t.is(sseOnly.reason, null);
  t.like(sseOnly.preset, { url: 'https://analytics.example.com/sse', transport: 'sse' });
  const both = map(real['hybrid-mcp']);
  t.is(both.preset?.url, 'https://mcp.anonymous.modelcontextprotocol.io/http');
  t.is(both.preset?.transport, undefined);
});

test('an unsupported remote transport and package are listed with the reason', (t) => {
  const websocket = map({ ...real['acme-analytics'], remotes: [{ type: 'websocket', url: 'https://analytics.example.com/ws' }] });
  t.is(websocket.preset, null);
  t.regex(websocket.reason!, /remote transport websocket is not supported/);
  const mcpb = map(real['text-editor']);
  t.is(mcpb.preset, null);
  t.regex(mcpb.reason!, /mcpb packages are not supported/);
});

test('an oci package with stdio becomes a stdio preset on its image, named by the server', (t) => {
  const p = map(real['kubernetes-manager-mcp'], { resources: { limits: { memory: '256Mi' } }, immutable_image_tags: true });
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
  t.regex(db.reason!, /needs argument database_name, which/);
  t.notRegex(db.reason!, /DB_USERNAME/, 'an environment variable without a value is one a connect supplies');
  const optional = map({ ...real['database-manager'], packages: [{ ...(real['database-manager']!.packages as object[])[0], packageArguments: [], environmentVariables: [] }] }, { immutable_image_tags: true });
  t.deepEqual(optional.preset?.stdio, { image: 'docker.io/example/database-manager-mcp:3.1.0' }, 'optional engine arguments (--network host) are dropped, never passed');
});

test('variables without a value beyond the token are env_inputs a connect supplies, secret unless the entry says otherwise', (t) => {
  const brave = real['brave-search']!;
  const pkg = (brave.packages as { environmentVariables: object[] }[])[0]!;
  const extra = [
    { name: 'BRAVE_SECOND_KEY', isSecret: true, isRequired: true, description: 'a second key' },
    { name: 'BRAVE_REGION', isSecret: false },
    { name: 'BRAVE_TEMPLATED', isRequired: true, value: 'x-{part}', variables: { part: { description: 'left to the user' } } },
  ];
  const templated = map({ ...brave, packages: [{ ...pkg, environmentVariables: [...pkg.environmentVariables, ...extra] }] }, { allow_package_fetch: true });
  t.is(templated.preset, null, 'a template with a gap stays refused');
  t.regex(templated.reason!, /BRAVE_TEMPLATED/);
  const mapped = map({ ...brave, packages: [{ ...pkg, environmentVariables: [...pkg.environmentVariables, ...extra.slice(0, 2)] }] }, { allow_package_fetch: true });
  t.is(mapped.preset?.stdio?.access_token_env_name, 'BRAVE_API_KEY', 'the first required secret is still the token');
  t.deepEqual(mapped.preset?.stdio?.env_inputs, [
    { name: 'BRAVE_SECOND_KEY', secret: true, required: true, description: 'a second key' },
    { name: 'BRAVE_REGION', secret: false, required: false },
  ]);
  t.deepEqual(mapped.fields?.map((f) => `${f.in}:${f.name}`), ['env:access_token', 'env:BRAVE_SECOND_KEY', 'env:BRAVE_REGION']);
});

test('npm and PyPI packages run through npx and uvx only with the overlay\'s word; a required secret env is the token', (t) => {
  const brave = map(real['brave-search'], { allow_package_fetch: true });
  t.deepEqual(brave.preset?.stdio, {
    image: 'docker.io/library/node:22-alpine',
    command: ['npx', '--yes', '@modelcontextprotocol/server-brave-search@1.0.2'],
    access_token_env_name: 'BRAVE_API_KEY',
    internet: true,
  });
  t.deepEqual(brave.fields, [{ name: 'access_token', in: 'env', secret: true, description: 'injected as BRAVE_API_KEY' }]);
  const weather = map(real['weather-mcp'], { allow_package_fetch: true });
  t.deepEqual(weather.preset?.stdio?.command, ['uvx', 'weather-mcp-server==0.5.0']);
  t.deepEqual(weather.preset?.stdio?.env, { WEATHER_UNITS: 'celsius' });
  t.is(map(real['brave-search']).preset, null);
  // The overlay's allowed networks and internet reach the workload's egress.
  const egress = map({ ...real['database-manager'], packages: [{ ...(real['database-manager']!.packages as object[])[0], packageArguments: [], environmentVariables: [] }] }, { allowed_networks: ['10.20.0.0/16'], immutable_image_tags: true });
  t.deepEqual(egress.preset?.stdio?.allowed_networks, ['10.20.0.0/16']);
  t.is(egress.preset?.stdio?.internet, undefined, 'an image gets no internet unless the overlay says so');
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
  t.regex(map(HOSTILE.distTag, allow).reason!, /no exact version \(semver, no dist-tag\)/);
  const args = map(HOSTILE.shellyArguments, allow);
  // No shell ever reads these: the runtimes spawn argv arrays, so each value is one inert argument.
  t.deepEqual(args.preset?.stdio?.command, ['npx', '--yes', 'innocent-mcp@2.0.0', '$(curl http://169.254.169.254)', '; rm -rf ~ #']);
  t.deepEqual(args.preset?.stdio?.env, { NOTE: '`id` && echo $HOME' });
  t.false(['sh', 'bash', '/bin/sh', '-c'].some((s) => args.preset?.stdio?.command?.includes(s)));
});

test('hostile remotes: plain http off loopback, credentials in the URL and other schemes are refused', (t) => {
  t.regex(map(HOSTILE.plainHttpRemote).reason!, /not https/);
  t.regex(map(HOSTILE.credentialsInUrl).reason!, /credentials/);
  t.truthy(map({ ...HOSTILE.plainHttpRemote, remotes: [{ type: 'streamable-http', url: 'http://127.0.0.1:9/mcp' }] }).preset, 'plain http on loopback (a local test registry) is allowed');
});

test('the schema refuses wrong types, bad names, control characters and oversize fields', (t) => {
  for (const doc of [HOSTILE.wrongTypes, HOSTILE.remoteUrlNotString, HOSTILE.badName, HOSTILE.controlCharacters, HOSTILE.oversize]) {
    t.false(ServerResponseSchema.safeParse({ server: doc }).success, String(doc.name));
  }
});

test('a URL that is not http(s), in a remote, a website or a package registry, refuses the entry (it is skipped, never listed)', (t) => {
  for (const doc of [HOSTILE.javascriptUrl, HOSTILE.javascriptRemote, HOSTILE.dataWebsite, HOSTILE.fileRegistry]) {
    const parsed = ServerResponseSchema.safeParse({ server: doc });
    t.false(parsed.success, String(doc.name));
    t.regex(parsed.error?.issues[0]?.message ?? '', /must be an http\(s\) URL/);
  }
  const template = { ...real['acme-analytics'], remotes: [{ type: 'streamable-http', url: 'https://{tenant}.example.com/mcp' }] };
  t.true(ServerResponseSchema.safeParse({ server: template }).success, 'a template is judged with its variables filled');
});

test('exact versions: semver for npm, PEP 440 for PyPI; dist-tags, ranges and wildcards are refused', (t) => {
  const npm = (version: string) => map({ ...HOSTILE.distTag, packages: [{ registryType: 'npm', identifier: 'left-pad', version, transport: { type: 'stdio' } }] }, { allow_package_fetch: true }).preset !== null;
  const pypi = (version: string) => map({ ...HOSTILE.distTag, packages: [{ registryType: 'pypi', identifier: 'tool', version, transport: { type: 'stdio' } }] }, { allow_package_fetch: true }).preset !== null;
  for (const ok of ['1.3.0', '0.0.1', '2.0.0-rc.1', '1.0.0+build.5']) t.true(npm(ok), ok);
  for (const bad of ['latest', 'next', '^1.0.0', '1.x', '1.0', '01.0.0', '>=1', '1.0.0 || 2']) t.false(npm(bad), bad);
  for (const ok of ['0.5.0', '1.0', '2.1.0rc1', '1.0.post2', '1!2.0']) t.true(pypi(ok), ok);
  for (const bad of ['latest', '1.*', '>=1.0', '~=1.0', '1.0,<2']) t.false(pypi(bad), bad);
});

test('variables that steer the loader, interpreters, package managers or container tools keep an entry from running', (t) => {
  const npm = map(HOSTILE.npmRegistryEnv, { allow_package_fetch: true });
  t.is(npm.preset, null);
  t.regex(npm.reason!, /environment variable npm_config_registry is refused from registry entries: a JavaScript package manager reads it/);
  t.regex(map(HOSTILE.nodeOptions).reason!, /NODE_OPTIONS is refused/);
  const withEnv = (name: string) => map({ ...HOSTILE.nodeOptions, packages: [{ ...(HOSTILE.nodeOptions.packages as object[])[0], environmentVariables: [{ name, value: 'x' }] }] });
  for (const name of ['LD_PRELOAD', 'NPM_CONFIG_REGISTRY', 'PIP_INDEX_URL', 'UV_INDEX_URL', 'PYTHONPATH', 'PATH', 'DOCKER_HOST', 'CONTAINER_HOST', 'HTTPS_PROXY', 'https_proxy', 'BASH_ENV', 'GIT_SSH_COMMAND', 'SSL_CERT_FILE']) {
    t.is(withEnv(name).preset, null, name);
  }
  for (const name of ['LOG_LEVEL', 'NODE_ENV', 'API_BASE_URL', 'WEATHER_UNITS']) t.truthy(withEnv(name).preset, name);
});

test('an image named by tag alone runs only when the operator vouches for immutable tags; a digest always pins it', (t) => {
  t.regex(map(real['kubernetes-manager-mcp']).reason!, /tag without a digest/);
  t.truthy(map(real['kubernetes-manager-mcp'], { immutable_image_tags: true }).preset);
  const pinned = { ...HOSTILE.nodeOptions, packages: [{ ...(HOSTILE.nodeOptions.packages as object[])[0], environmentVariables: [] }] };
  t.truthy(map(pinned).preset, 'an image with a digest needs no word from the operator');
});

test('overlay metadata: name and description replace the registry\'s, any other key is added', (t) => {
  const p = map(real['mcp-fs'], { metadata: { team: 'sales', name: 'Files' } });
  t.deepEqual(p.metadata, { team: 'sales', name: 'Files', description: 'Cloud-hosted MCP filesystem server' });
  t.deepEqual(p.preset?.metadata, p.metadata);
});

test('unknown fields with no security meaning are dropped, not refused (never stored)', (t) => {
  const parsed = ServerResponseSchema.parse({ server: { ...real['mcp-fs'], icons: [{ src: 'https://x/i.png' }], 'odd.key': 1 }, _meta: { 'vendor.ext': { a: 1 } } });
  t.false('icons' in parsed.server);
  t.false('odd.key' in parsed.server);
  t.false('_meta' in parsed.server, 'publisher metadata (dotted keys) never reaches the database');
});
