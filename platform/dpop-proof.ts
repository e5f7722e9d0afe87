// DPoP proofs (RFC 9449 section 4): a JWT the client signs for each HTTP request with the key its
// access token is bound to, naming the request's method and URI (without query or fragment), its
// own time and a unique id, and, next to a token, the token's hash (`ath`). Built with node:crypto
// directly, synchronously: the proxy signs one per relayed request, and a KeyObject imported once
// per route signs in tens of microseconds (bench/proxy.ts measures it). Only ES256 (P-256) keys
// are made: the algorithm every DPoP server supports, and the cheapest of them to sign with.
import crypto, { type KeyObject } from 'node:crypto';

export const DPOP_ALGORITHM = 'ES256';

/** A connector's proof key: the private key, and the proof header that names its public half. */
export interface DpopKey {
  readonly privateKey: KeyObject;
  /** base64url of the JOSE header, the same for every proof made with the key. */
  readonly header: string;
  /** RFC 7638 SHA-256 thumbprint of the public key (what a bound token's cnf.jkt names). */
  readonly thumbprint: string;
}

export interface ProofRequest {
  /** The HTTP method, upper case. */
  htm: string;
  /** The request's URL without query and fragment (proofUri). */
  htu: string;
  /** The access token the request carries: its hash goes into the proof (`ath`). */
  token?: string | null;
  /** The server's latest DPoP-Nonce for this origin. */
  nonce?: string | null;
}

/** A new P-256 private key as a JWK, in JSON: what the service seals and keeps for a connector. */
export function generateDpopKeyJwk(): string {
  const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return JSON.stringify(privateKey.export({ format: 'jwk' }));
}

/** The key from its JWK JSON; throws when it is no P-256 private key. */
export function openDpopKey(jwkJson: string): DpopKey {
  const jwk = JSON.parse(jwkJson) as crypto.JsonWebKey;
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.d !== 'string') throw new Error('the DPoP key is not a P-256 private key');
  const privateKey = crypto.createPrivateKey({ key: jwk, format: 'jwk' });
  // Members in the order RFC 7638 hashes them; the header repeats them (no private part, ever).
  const publicJwk = { crv: 'P-256', kty: 'EC', x: jwk.x!, y: jwk.y! };
  const header = base64url(JSON.stringify({ typ: 'dpop+jwt', alg: DPOP_ALGORITHM, jwk: publicJwk }));
  const thumbprint = crypto.createHash('sha256').update(JSON.stringify(publicJwk)).digest('base64url');
  return { privateKey, header, thumbprint };
}

/** The `htu` of a request: its URL without query and fragment (RFC 9449 section 4.2). */
export function proofUri(url: string | URL): string {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  return `${parsed.origin}${parsed.pathname}`;
}

/** The `ath` of a token: base64url of its SHA-256 (RFC 9449 section 4.2). */
export function tokenHash(token: string): string {
  return crypto.createHash('sha256').update(token, 'ascii').digest('base64url');
}

/** A fresh proof for one request. */
export function dpopProof(key: DpopKey, request: ProofRequest, now = Date.now()): string {
  const claims: Record<string, string | number> = {
    jti: crypto.randomUUID(), htm: request.htm, htu: request.htu, iat: Math.floor(now / 1000),
  };
  if (request.token) claims.ath = tokenHash(request.token);
  if (request.nonce) claims.nonce = request.nonce;
  const signingInput = `${key.header}.${base64url(JSON.stringify(claims))}`;
  // JWS wants the raw r||s pair, not the DER that node:crypto writes by default.
  const signature = crypto.sign('sha256', Buffer.from(signingInput), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}
