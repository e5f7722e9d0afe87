// Resource-server DPoP nonces (RFC 9449 section 9): a server may refuse a proof without its
// nonce (401, `WWW-Authenticate: DPoP error="use_dpop_nonce"`, the nonce in `DPoP-Nonce`), and
// may hand a new one on any answer. The last one per origin is kept in the process, so that only
// the first request to a server after a change pays a second round trip; the request refused for
// want of it is sent again once, with a new proof. Plus the same for a fetch: the probe's.
import { parseWwwAuthenticate } from '../contract/www-authenticate';
import { dpopProof, proofUri, type DpopKey } from './dpop-proof';

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The last nonce each origin gave, for at most `maxOrigins` origins (the oldest forgotten first). */
export class DpopNonces {
  private readonly byOrigin = new Map<string, string>();

  constructor(private readonly maxOrigins = 10_000) {}

  get(origin: string): string | undefined {
    return this.byOrigin.get(origin);
  }

  /** Keeps the answer's nonce, if it sent one; true when it did. */
  note(origin: string, nonce: string | string[] | null | undefined): boolean {
    const value = Array.isArray(nonce) ? nonce[0] : nonce;
    // A nonce is an NQCHAR string (RFC 9449 section 8.1); anything else is not put into a proof.
    if (!value || !/^[\x21\x23-\x5B\x5D-\x7E]{1,512}$/.test(value)) return false;
    if (this.byOrigin.get(origin) === value) return true;
    this.byOrigin.delete(origin);
    this.byOrigin.set(origin, value);
    if (this.byOrigin.size > this.maxOrigins) this.byOrigin.delete(this.byOrigin.keys().next().value!);
    return true;
  }
}

/** A 401 that asks for the proof to carry the server's nonce. */
export function asksForNonce(status: number, wwwAuthenticate: string | string[] | null | undefined): boolean {
  if (status !== 401 || !wwwAuthenticate) return false;
  const header = Array.isArray(wwwAuthenticate) ? wwwAuthenticate.join(', ') : wwwAuthenticate;
  return parseWwwAuthenticate(header).some((c) => c.scheme === 'dpop' && c.params.error === 'use_dpop_nonce');
}

/**
 * A fetch that presents `token` with the DPoP scheme and a fresh proof on every request, and
 * sends a request again, once, when the server asks for its nonce. The body must be one that can
 * be sent twice (a string or bytes, as the MCP SDK's transports send).
 */
export function dpopFetch(fetch: FetchLike, key: DpopKey, token: string, nonces: DpopNonces): FetchLike {
  return async (url, init = {}) => {
    const parsed = new URL(url);
    const { origin } = parsed;
    const htu = proofUri(parsed);
    const attempt = () => {
      const headers = new Headers(init.headers);
      const htm = (init.method ?? 'GET').toUpperCase();
      headers.set('authorization', `DPoP ${token}`);
      headers.set('dpop', dpopProof(key, { htm, htu, token, nonce: nonces.get(origin) }));
      return fetch(url, { ...init, headers });
    };
    const answer = await attempt();
    const fresh = nonces.note(origin, answer.headers.get('dpop-nonce'));
    if (!fresh || !asksForNonce(answer.status, answer.headers.get('www-authenticate'))) return answer;
    await answer.body?.cancel();
    return attempt();
  };
}
