// Enterprise-managed authorization (SEP-990) declared by a registry overlay: the remote's preset is
// the one an env preset with the same declaration would be, checked by the same rules (a client
// at the server's authorization server, no other grant, no URL a connect may point elsewhere), and
// its connects ask for the user's id_token alone.
import test from 'ava';
import { PresetSchema } from '../../contract/schemas';
import { RegistryOverlaySchema } from '../../catalog/registry-config';
import { registryPreset } from '../../catalog/registry-presets';
import { presetInputFields } from '../../catalog/connect-inputs';
import { entryOf, ServerResponseSchema } from '../../catalog/server-json';
import { realServers } from '../fixtures/registry/registry-server';

const OFFICIAL = { 'io.modelcontextprotocol.registry/official': { status: 'active', updatedAt: '2026-01-01T00:00:00Z', isLatest: true } };
const grant = { idp_token_endpoint: 'https://idp.example.com/oauth2/token', idp_client_id: 'registry', idp_client_secret: 'idp-secret' };
const client = { client_id: 'registry-at-server', client_secret: 'as-secret' };
const entryWith = (server: object) => entryOf(ServerResponseSchema.parse({ server, _meta: OFFICIAL }));

test("a registry overlay's enterprise_managed makes the remote's preset an env preset's equal", (t) => {
  const server = realServers()['mcp-fs'] as object;
  const overlay = RegistryOverlaySchema.parse({ ...client, enterprise_managed: grant });
  const { preset, reason } = registryPreset(entryWith(server), overlay);
  t.is(reason, null);
  t.like(preset, { ...client, enterprise_managed: grant });
  const asEnv = PresetSchema.safeParse(preset);
  t.true(asEnv.success, 'the same preset passes as an env preset');
  t.deepEqual(presetInputFields(preset!).map((f) => [f.name, f.in, f.secret]), [['id_token', 'connect', true]], 'a connect gives the id_token alone');
});

test('the overlay is refused where an env preset would be: no client, another grant, a free URL variable, a bad endpoint', (t) => {
  const server = realServers()['mcp-fs'] as object;
  const reasonOf = (overlay: object, of: object = server) => registryPreset(entryWith(of), RegistryOverlaySchema.parse(overlay)).reason;
  t.regex(reasonOf({ enterprise_managed: grant }) ?? '', /enterprise_managed: requires client_id and client_secret/);
  t.regex(reasonOf({ ...client, enterprise_managed: grant, client_credentials: {} }) ?? '', /not with client_credentials/);
  const templated = { ...server, remotes: [{ type: 'streamable-http', url: 'https://{tenant}.example.com/mcp', variables: { tenant: { isRequired: true } } }] };
  t.regex(reasonOf({ ...client, enterprise_managed: grant }, templated) ?? '', /\{?tenant\}? may be set to anything/);
  t.true(registryPreset(entryWith(templated), RegistryOverlaySchema.parse({ ...client, enterprise_managed: grant, variables: { tenant: 'acme' } })).preset !== null, 'a fixed tenant keeps the server the operator\'s');
  t.false(RegistryOverlaySchema.safeParse({ ...client, enterprise_managed: { ...grant, idp_token_endpoint: 'not a url' } }).success);
  t.false(RegistryOverlaySchema.safeParse({ ...client, enterprise_managed: { ...grant, extra: 1 } }).success, 'nothing the schema does not know');
});
