// A preset that declares enterprise-managed authorization (SEP-990): the identity provider and the
// authorization server's client are the operator's, so a connect gives only the user's id_token
// (the console: the ID token of its own sign-in). The body is filled here; sealing happens as for
// any grant the body names (connect-grants.ts), so only ciphertext reaches the workflow.
import { ProblemError } from '../contract/problem';
import type { ConnectRequest, Preset } from '../contract/schemas';

/** The connect body with the preset's grant filled in around the caller's id_token, or 422 naming id_token. */
export function withPresetEnterpriseManaged(body: ConnectRequest, preset: Preset | undefined): ConnectRequest {
  if (body.grant || body.access_token) return body;
  const grant = preset?.enterprise_managed;
  if (!grant) {
    if (body.id_token !== undefined) throw invalidIdToken('only with grant enterprise_managed, or for a connector whose preset declares enterprise_managed');
    return body;
  }
  if (!body.id_token) throw invalidIdToken("required: this connector's preset connects with enterprise-managed authorization (the user's ID token)");
  return {
    ...body, grant: 'enterprise_managed', client_id: preset.client_id!, client_secret: preset.client_secret!,
    idp_token_endpoint: grant.idp_token_endpoint, idp_client_id: grant.idp_client_id,
    ...(grant.idp_client_secret ? { idp_client_secret: grant.idp_client_secret } : {}),
  };
}

function invalidIdToken(message: string): ProblemError {
  return new ProblemError(422, 'the connect request is invalid', undefined, [{ path: 'id_token', message }]);
}
