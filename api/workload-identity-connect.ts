// Who may lend the service's own workload identity to a connector. The workload token proves the
// service itself, so where it is presented is the operator's decision: a preset that asks for it
// (an empty connect then uses it, as the preset's client), or an admin's explicit grant. Anyone
// else could point a connector at an authorization server of their own and collect the token.
import { ProblemError } from '../contract/problem';
import type { ConnectRequest, Preset } from '../contract/schemas';
import type { Caller } from '../callers/caller';

/** The connect body with the preset's workload identity filled in, or refused (403, 422). */
export function withWorkloadIdentity(body: ConnectRequest, preset: Preset | undefined, caller: Caller, configured: boolean): ConnectRequest {
  const asked = preset?.workload_identity;
  const fromPreset = Boolean(asked && !body.grant && !body.access_token);
  if (body.grant !== 'workload_identity' && !fromPreset) return body;
  if (!configured) {
    throw new ProblemError(422, 'the connect request is invalid', undefined, [
      { path: 'grant', message: 'this deployment names no workload identity token file (CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE)' },
    ]);
  }
  if (fromPreset) return { ...body, grant: 'workload_identity', client_id: asked!.client_id };
  if (!caller.admin) throw new ProblemError(403, "only an admin connects with the service's workload identity, or a preset that asks for it", 'forbidden');
  return body;
}
