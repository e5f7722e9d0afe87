// The grants of a connect body (client_credentials, enterprise_managed, workload_identity) checked
// where only the service can check them, and sealed for the purposes the OAuth activities open
// them with: only ciphertext reaches Temporal history. A workload_identity grant holds no secret:
// the worker reads the workload's token from its file at each request.
import { createPrivateKey } from 'node:crypto';
import { decodeJwt, type JWTPayload } from 'jose';
import { ProblemError } from '../contract/problem';
import type { ConnectRequest } from '../contract/schemas';
import { secretContext, type SecretBox } from '../platform/secret-box';
import type { ClientCredentialsGrant, EnterpriseManagedGrant, WorkloadIdentityGrant } from '../workflows/messages';

export interface SealedGrants {
  clientCredentials?: ClientCredentialsGrant;
  enterpriseManaged?: EnterpriseManagedGrant;
  workloadIdentity?: WorkloadIdentityGrant;
}

export function sealGrants(id: string, body: ConnectRequest, secrets: SecretBox): SealedGrants {
  if (!body.grant) return {};
  if (body.grant === 'workload_identity') return { workloadIdentity: { clientId: body.client_id! } };
  const seal = (value: string, purpose: string) => secrets.seal(value, secretContext(id, purpose));
  if (body.private_key_pem) assertSigningKey(body.private_key_pem, body.signing_algorithm ?? 'ES256');
  const client: ClientCredentialsGrant = {
    clientId: body.client_id!,
    clientSecret: body.client_secret ? seal(body.client_secret, 'oauth_client_secret') : null,
    privateKey: body.private_key_pem ? { pem: seal(body.private_key_pem, 'oauth_private_key'), algorithm: body.signing_algorithm ?? 'ES256' } : null,
  };
  if (body.grant === 'client_credentials') return { clientCredentials: client };
  const { idTokenExpiresAt, issuer } = idTokenClaims(body.id_token!);
  return {
    enterpriseManaged: {
      client,
      assertion: {
        idpTokenEndpoint: body.idp_token_endpoint!, idpClientId: body.idp_client_id!,
        idpClientSecret: body.idp_client_secret ? seal(body.idp_client_secret, 'idp_client_secret') : null,
        idToken: seal(body.id_token!, 'id_token'), idTokenExpiresAt, issuer,
      },
    },
  };
}

/**
 * When the ID token stops being of use (its exp) and who issued it (where a fresh one comes from),
 * read without verifying it: the identity provider verifies it at the exchange. One that is no
 * JWT, or already expired, could only fail there, as a 502 long after the caller left: refused
 * here, naming the field.
 */
function idTokenClaims(idToken: string): { idTokenExpiresAt: string | null; issuer: string | null } {
  let claims: JWTPayload;
  try {
    claims = decodeJwt(idToken);
  } catch {
    throw invalid('id_token', 'not a JWT (an OpenID Connect ID token is one)');
  }
  const issuer = typeof claims.iss === 'string' ? claims.iss.slice(0, 2048) : null;
  if (claims.exp === undefined) return { idTokenExpiresAt: null, issuer };
  if (claims.exp * 1000 <= Date.now()) throw invalid('id_token', 'has expired (its exp is past)');
  return { idTokenExpiresAt: new Date(claims.exp * 1000).toISOString(), issuer };
}

/**
 * A key that cannot sign would fail only at the token request, as a 502 long after the caller
 * left: refused here instead, naming the field. The key's text never reaches the answer.
 */
function assertSigningKey(pem: string, algorithm: string): void {
  const wanted = algorithm.startsWith('ES') ? 'ec' : 'rsa';
  let type: string | undefined;
  try {
    type = createPrivateKey(pem).asymmetricKeyType;
  } catch {
    throw invalid('private_key_pem', 'not a PEM private key');
  }
  if (type !== wanted && !(wanted === 'rsa' && type === 'rsa-pss')) throw invalid('private_key_pem', `a ${type} key cannot sign ${algorithm}`);
}

function invalid(path: string, message: string): ProblemError {
  return new ProblemError(422, 'the connect request is invalid', undefined, [{ path, message }]);
}
