// Who may present the service's workload identity (api/workload-identity-connect.ts): a preset
// that asks for it (an empty connect uses it), or an admin; never without a token file.
import test from 'ava';
import { ProblemError } from '../../contract/problem';
import type { ConnectRequest, Preset } from '../../contract/schemas';
import { withWorkloadIdentity } from '../../api/workload-identity-connect';

const user = { subject: 'alice', displayName: 'alice', admin: false };
const admin = { subject: 'root', displayName: 'root', admin: true };
const asking: Preset = { url: 'https://mcp.example.com/mcp', workload_identity: { client_id: 'svc' } };
const plain: Preset = { url: 'https://mcp.example.com/mcp' };
const explicit: ConnectRequest = { grant: 'workload_identity', client_id: 'other' };

const status = (fn: () => unknown) => {
  try {
    fn();
    return 200;
  } catch (err) {
    return (err as ProblemError).status;
  }
};

test("a preset that asks for it turns an empty connect into the grant, with the preset's client", (t) => {
  t.deepEqual(withWorkloadIdentity({}, asking, user, true), { grant: 'workload_identity', client_id: 'svc' });
});

test('a connect with a token or another grant is left alone, preset or not', (t) => {
  t.deepEqual(withWorkloadIdentity({ access_token: 't' }, asking, user, true), { access_token: 't' });
  const cc: ConnectRequest = { grant: 'client_credentials', client_id: 'a', client_secret: 's' };
  t.is(withWorkloadIdentity(cc, asking, user, false), cc);
  t.deepEqual(withWorkloadIdentity({}, plain, user, false), {});
});

test('an explicit grant: an admin only (403 for anyone else, preset or not)', (t) => {
  t.is(withWorkloadIdentity(explicit, undefined, admin, true), explicit);
  t.is(status(() => withWorkloadIdentity(explicit, undefined, user, true)), 403);
  t.is(status(() => withWorkloadIdentity(explicit, asking, user, true)), 403);
});

test('without a token file the grant is refused with 422 naming grant, for an admin and a preset alike', (t) => {
  t.is(status(() => withWorkloadIdentity(explicit, undefined, admin, false)), 422);
  t.is(status(() => withWorkloadIdentity({}, asking, user, false)), 422);
});
