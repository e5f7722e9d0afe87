// What a token response leaves the service with. Plaintext by design: the workflow layer seals
// each secret before it goes anywhere.
import type * as oauth from 'oauth4webapi';
import { UnsupportedTokenTypeError } from './errors';

export interface TokenSet {
  accessToken: string;
  /** The refresh token to keep: a rotated one, else the one used, else null. */
  refreshToken: string | null;
  /** RFC 3339 UTC; null when the server gave no lifetime. */
  expiresAt: string | null;
  /** The granted scope, where the server said it. */
  scope: string | null;
  /** The token is DPoP-bound (token_type DPoP): presented with a proof made with the key that asked for it. */
  dpop: boolean;
}

export function toTokenSet(
  response: oauth.TokenEndpointResponse,
  now: number,
  previousRefreshToken: string | null = null,
  sentProof = false,
): TokenSet {
  // A DPoP token is usable only with the key the request's proof named; other types would need
  // what the service does not do (RFC 9449 section 5 lets a server answer a proof with Bearer).
  const dpop = response.token_type === 'dpop' && sentProof;
  if (response.token_type !== 'bearer' && !dpop) {
    throw new UnsupportedTokenTypeError(`the authorization server issued a ${response.token_type} token; only Bearer tokens and DPoP tokens asked for with a proof are supported`);
  }
  const lifetime = typeof response.expires_in === 'number' && response.expires_in > 0 ? response.expires_in : null;
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token ?? previousRefreshToken,
    expiresAt: lifetime === null ? null : new Date(now + lifetime * 1000).toISOString(),
    scope: typeof response.scope === 'string' ? response.scope : null,
    dpop,
  };
}
