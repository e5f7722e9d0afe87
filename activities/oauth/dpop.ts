// DPoP at the token endpoint (RFC 9449 section 5; SEP-1932): where the authorization server
// advertises ES256 in `dpop_signing_alg_values_supported`, the connector gets its own key pair
// and every token request (code, refresh, client credentials, JWT bearer) carries a proof made
// with it, so the token is bound to the key (its cnf.jkt) and useless to whoever copies it without
// the key. oauth4webapi makes the proofs and keeps the server's nonce; a request refused with
// use_dpop_nonce (section 8) is sent again, once, with the nonce.
import crypto from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { DPOP_ALGORITHM } from '../../platform/dpop-proof';
import { requestOptions, type OAuthHttp } from './http';
import type { AuthorizationServerMetadata } from './schemas';

export { generateDpopKeyJwk } from '../../platform/dpop-proof';

/** Whether tokens from this server should be DPoP-bound: it advertises an algorithm the service signs with. */
export function offersDpop(as: AuthorizationServerMetadata): boolean {
  return as.dpop_signing_alg_values_supported?.includes(DPOP_ALGORITHM) ?? false;
}

/** oauth4webapi's request options, with a DPoP handle when `dpopKeyJwk` (the connector's private JWK, JSON) is given. */
export async function tokenRequestOptions(http: OAuthHttp, client: oauth.Client, dpopKeyJwk: string | null | undefined) {
  const base = requestOptions(http);
  if (!dpopKeyJwk) return base;
  return { ...base, DPoP: oauth.DPoP(client, await keyPairOf(dpopKeyJwk)) };
}

/** Runs a token request (the request and its answer's processing); once more when the server asks for its DPoP nonce. */
export async function withNonceRetry<T>(dpop: boolean, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (err) {
    // The handle kept the nonce from the refusal; the second proof carries it.
    if (dpop && oauth.isDPoPNonceError(err)) return request();
    throw err;
  }
}

async function keyPairOf(jwkJson: string): Promise<crypto.webcrypto.CryptoKeyPair> {
  const { kty, crv, x, y, d } = JSON.parse(jwkJson) as crypto.JsonWebKey;
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256' };
  const [privateKey, publicKey] = await Promise.all([
    crypto.subtle.importKey('jwk', { kty, crv, x, y, d }, algorithm, false, ['sign']),
    // oauth4webapi exports the public half into every proof's header.
    crypto.subtle.importKey('jwk', { kty, crv, x, y }, algorithm, true, ['verify']),
  ]);
  return { privateKey, publicKey };
}
