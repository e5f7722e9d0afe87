// DPoP on the proxy's upstream requests (RFC 9449 section 7): a connector whose token is bound to
// its key presents the token with the DPoP scheme and a fresh proof per request (htm, htu, ath,
// and the server's nonce when it gave one). The last nonce per upstream origin is kept for the
// whole process (platform/dpop-nonces.ts); a 401 asking for a nonce the request lacked is sent
// again once with a new proof, by whoever sent it (relay-exchange.ts, upstream-client.ts).
import type { IncomingHttpHeaders } from 'node:http';
import { asksForNonce, DpopNonces } from '../platform/dpop-nonces';
import { dpopProof } from '../platform/dpop-proof';
import type { ConnectedRoute } from './route';
import type { UpstreamTarget } from './upstream-target';

export class UpstreamDpop {
  readonly nonces = new DpopNonces();

  /** The proof for one request of `route` to `target`; undefined for a route without a bound token. */
  proof(route: ConnectedRoute, method: string, target: UpstreamTarget): string | undefined {
    if (!route.dpop || !route.token) return undefined;
    const query = target.path.indexOf('?');
    const htu = target.origin + (query === -1 ? target.path : target.path.slice(0, query));
    return dpopProof(route.dpop, { htm: method, htu, token: route.token, nonce: this.nonces.get(target.origin) });
  }

  /**
   * Keeps the nonce an answer to a DPoP request carries; true when the answer is a 401 asking for
   * a nonce the server has just given (the request is then worth sending again, once).
   */
  noteAnswer(route: ConnectedRoute, origin: string, status: number, headers: IncomingHttpHeaders): boolean {
    if (!route.dpop) return false;
    const fresh = this.nonces.note(origin, headers['dpop-nonce']);
    return fresh && asksForNonce(status, headers['www-authenticate']);
  }
}
