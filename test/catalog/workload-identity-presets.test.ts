// Presets that ask for workload identity (SEP-1933): an env preset's `workload_identity` and a
// registry overlay's, each only for a remote without an OAuth client of its own, and whose URL a
// connect cannot point elsewhere (the service's own token would follow).
import test from 'ava';
import { PresetSchema } from '../../contract/schemas';
import { RegistryOverlaySchema } from '../../catalog/registry-config';
import { registryPreset } from '../../catalog/registry-presets';
import { entryOf, ServerResponseSchema } from '../../catalog/server-json';
import { realServers } from '../fixtures/registry/registry-server';

const remote = { url: 'https://mcp.example.com/mcp', workload_identity: { client_id: 'svc' } };

test('an env preset may ask for workload identity for a remote without a client of its own', (t) => {
  t.deepEqual(PresetSchema.parse(remote).workload_identity, { client_id: 'svc' });
  const refused = (p: object) => PresetSchema.safeParse(p).error?.issues.map((i) => i.path.join('.'));
  t.deepEqual(refused({ ...remote, client_id: 'other' }), ['workload_identity']);
  t.deepEqual(refused({ url: 'mcp+stdio://x', stdio: { image: 'x:1', command: ['x'] }, workload_identity: { client_id: 'svc' } }), ['workload_identity']);
  t.truthy(refused({ ...remote, workload_identity: {} }), 'a client id is required');
});

test('not with a URL variable a connect may set freely; a fixed value or choices keep the server the operator\'s', (t) => {
  const tenant = { url: 'https://{tenant}.example.com/mcp', workload_identity: { client_id: 'svc' } };
  const free = PresetSchema.safeParse({ ...tenant, variables: { tenant: { description: 'Your tenant' } } });
  t.regex(free.error?.issues.find((i) => i.path[0] === 'workload_identity')?.message ?? '', /\{tenant\}/);
  t.false(PresetSchema.safeParse(tenant).success, 'an undeclared variable is free too');
  t.true(PresetSchema.safeParse({ ...tenant, variables: { tenant: { choices: ['eu', 'us'] } } }).success);
  t.true(PresetSchema.safeParse({ ...tenant, variables: { tenant: { value: 'acme' } } }).success);
});

test("a registry overlay's workload identity reaches the remote's preset; not beside an OAuth client", (t) => {
  const server = realServers()['mcp-fs'];
  const entry = entryOf(ServerResponseSchema.parse({ server, _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', updatedAt: '2026-01-01T00:00:00Z', isLatest: true } } }));
  const overlay = RegistryOverlaySchema.parse({ workload_identity: { client_id: 'svc' } });
  t.deepEqual(registryPreset(entry, overlay).preset?.workload_identity, { client_id: 'svc' });
  t.false(RegistryOverlaySchema.safeParse({ client_id: 'cid', workload_identity: { client_id: 'svc' } }).success);

  const templated = { ...server, remotes: [{ type: 'streamable-http', url: 'https://{tenant}.example.com/mcp', variables: { tenant: { isRequired: true } } }] };
  const tenantEntry = entryOf(ServerResponseSchema.parse({ server: templated, _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', updatedAt: '2026-01-01T00:00:00Z', isLatest: true } } }));
  const free = registryPreset(tenantEntry, overlay);
  t.is(free.preset, null);
  t.regex(free.reason ?? '', /workload_identity.*\{tenant\}/);
  t.truthy(registryPreset(tenantEntry, { ...overlay, variables: { tenant: 'acme' } }).preset, 'fixed by the overlay');
});
