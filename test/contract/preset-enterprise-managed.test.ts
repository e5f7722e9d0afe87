// A preset's enterprise-managed grant (SEP-990): accepted only for a remote preset with its own
// client and secret, never where a caller could choose the host; a connect then gives only the
// user's id_token and the preset fills in the rest; an id_token alone for any other connector, or
// a connect of such a preset without one, is refused naming id_token.
import test from 'ava';
import { ConnectRequestSchema, PresetSchema } from '../../contract/schemas';
import { ProblemError } from '../../contract/problem';
import { withPresetEnterpriseManaged } from '../../api/preset-enterprise-managed';
import { presetInputFields } from '../../catalog/connect-inputs';

const idp = { idp_token_endpoint: 'https://idp.example.com/token', idp_client_id: 'registry' };
const remote = { url: 'https://mcp.example.com/mcp', client_id: 'ema', client_secret: 's3cret', enterprise_managed: { ...idp, idp_client_secret: 'idp-s3cret' } };

test('accepted with the client and its secret; refused otherwise, naming why', (t) => {
  t.true(PresetSchema.safeParse(remote).success);
  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['no client secret', { ...remote, client_secret: undefined }, /requires client_id and client_secret/],
    ['a stdio preset', { ...remote, url: 'mcp+stdio://x', stdio: { image: 'x' } }, /only for a remote preset/],
    ['with client credentials too', { ...remote, client_credentials: {} }, /not with client_credentials/],
    ['an identity provider over plain http', { ...remote, enterprise_managed: { ...idp, idp_token_endpoint: 'http://idp.example.com/token' } }, /https/],
    ['a host the caller chooses', { ...remote, url: 'https://{tenant}.example.com/mcp', variables: { tenant: { description: 'which' } } }, /tenant may be set to anything/],
  ];
  for (const [what, preset, message] of refused) {
    const parsed = PresetSchema.safeParse(preset);
    t.false(parsed.success, what);
    t.regex(JSON.stringify(parsed.error?.issues ?? []), message, what);
  }
});

test("a connect gives only the id_token; the preset's grant is filled in around it", (t) => {
  const preset = PresetSchema.parse(remote);
  t.true(ConnectRequestSchema.safeParse({ id_token: 'a.b.c' }).success, 'an id_token alone passes the schema');
  t.deepEqual(withPresetEnterpriseManaged({ id_token: 'a.b.c' }, preset), {
    id_token: 'a.b.c', grant: 'enterprise_managed', client_id: 'ema', client_secret: 's3cret', ...idp, idp_client_secret: 'idp-s3cret',
  });
  const own = { grant: 'enterprise_managed' as const, client_id: 'mine', client_secret: 'x', id_token: 't', ...idp };
  t.deepEqual(withPresetEnterpriseManaged(own, preset), own, "a caller's own grant is left as it is");
  t.deepEqual(withPresetEnterpriseManaged({ access_token: 't' }, preset), { access_token: 't' });
  t.like(presetInputFields(preset).at(-1), { name: 'id_token', in: 'connect', secret: true, required: true });
});

test('refused naming id_token: none for such a preset, or one alone for any other connector', (t) => {
  const named = (fn: () => unknown) => {
    const err = t.throws(fn, { instanceOf: ProblemError }) as ProblemError;
    t.is(err.status, 422);
    return err.errors?.[0]?.path;
  };
  t.is(named(() => withPresetEnterpriseManaged({}, PresetSchema.parse(remote))), 'id_token');
  t.is(named(() => withPresetEnterpriseManaged({ id_token: 'a.b.c' }, undefined)), 'id_token');
  t.is(named(() => withPresetEnterpriseManaged({ id_token: 'a.b.c' }, PresetSchema.parse({ url: remote.url }))), 'id_token');
  t.false(ConnectRequestSchema.safeParse({ id_token: 'a.b.c', access_token: 't' }).success);
});
