// A preset that carries its own client credentials grant (SEP-1046): an empty connect of its
// connector obtains the token as the preset's client, so the platform's callers never hold the
// client's secret or key. The body is filled here; sealing it happens as for any grant the body
// names (connect-grants.ts), so only ciphertext reaches the workflow.
import type { ConnectRequest, Preset } from '../contract/schemas';

export function withPresetClientCredentials(body: ConnectRequest, preset: Preset | undefined): ConnectRequest {
  const grant = preset?.client_credentials;
  if (!grant || body.grant || body.access_token || !preset.client_id) return body;
  return {
    ...body, grant: 'client_credentials', client_id: preset.client_id,
    ...(grant.private_key_pem
      ? { private_key_pem: grant.private_key_pem, signing_algorithm: grant.signing_algorithm ?? 'ES256' }
      : { client_secret: preset.client_secret }),
  };
}
