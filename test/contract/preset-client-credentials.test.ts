// A preset's (or an overlay's) own client credentials grant: accepted only for a remote preset with
// its client and exactly one of a secret or a key, never where a caller could choose the host; an
// empty connect then names the grant with the preset's client, a caller's own grant or token wins.
import test from 'ava';
import { PresetSchema } from '../../contract/schemas';
import { withPresetClientCredentials } from '../../api/preset-client-credentials';

const remote = { url: 'https://mcp.example.com/mcp', client_id: 'machine', client_secret: 's3cret', client_credentials: {} };

test('accepted with a client and its secret, or its key; refused otherwise, naming why', (t) => {
  t.true(PresetSchema.safeParse(remote).success);
  t.true(PresetSchema.safeParse({ url: remote.url, client_id: 'machine', client_credentials: { private_key_pem: 'KEY', signing_algorithm: 'RS256' } }).success);
  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['no client', { url: remote.url, client_credentials: {} }, /requires client_id/],
    ['neither secret nor key', { url: remote.url, client_id: 'm', client_credentials: {} }, /either client_secret or client_credentials.private_key_pem/],
    ['both', { ...remote, client_credentials: { private_key_pem: 'KEY' } }, /either client_secret/],
    ['an algorithm without a key', { ...remote, client_credentials: { signing_algorithm: 'ES256' } }, /signing_algorithm is for private_key_pem/],
    ['a host the caller chooses', { ...remote, url: 'https://{tenant}.example.com/mcp', variables: { tenant: { description: 'which' } } }, /tenant may be set to anything/],
  ];
  for (const [what, preset, message] of refused) {
    const parsed = PresetSchema.safeParse(preset);
    t.false(parsed.success, what);
    t.regex(JSON.stringify(parsed.error?.issues ?? []), message, what);
  }
  t.true(PresetSchema.safeParse({ ...remote, url: 'https://{tenant}.example.com/mcp', variables: { tenant: { choices: ['eu', 'us'] } } }).success, 'a host from a list is the operator\'s');
});

test("an empty connect uses the preset's client; a body with its own grant or token is left as it is", (t) => {
  const preset = PresetSchema.parse(remote);
  t.deepEqual(withPresetClientCredentials({}, preset), { grant: 'client_credentials', client_id: 'machine', client_secret: 's3cret' });
  const keyed = PresetSchema.parse({ url: remote.url, client_id: 'machine', client_credentials: { private_key_pem: 'KEY' } });
  t.deepEqual(withPresetClientCredentials({}, keyed), { grant: 'client_credentials', client_id: 'machine', private_key_pem: 'KEY', signing_algorithm: 'ES256' });
  t.deepEqual(withPresetClientCredentials({ access_token: 't' }, preset), { access_token: 't' });
  const own = { grant: 'client_credentials' as const, client_id: 'mine', client_secret: 'x' };
  t.deepEqual(withPresetClientCredentials(own, preset), own);
  t.deepEqual(withPresetClientCredentials({}, PresetSchema.parse({ url: remote.url, client_id: 'code-flow-client' })), {}, 'a preset without the grant keeps the code flow');
});
