// Who may drive the gateway: whoever presents its secret (the proxy). Digests of equal length
// are compared, so neither the secret's length nor its first differing byte shows in the timing.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { GATEWAY_SECRET_HEADER } from '../contract/gateway-secret';

export type RequestCheck = (req: IncomingMessage) => boolean;

/** Without a secret every request passes: a gateway run by hand on loopback, as before. */
export function gatewayAuth(secret: string | undefined): RequestCheck {
  if (secret === undefined) return () => true;
  if (secret === '') throw new Error('the gateway secret must not be empty');
  const expected = digest(secret);
  return (req) => {
    const given = req.headers[GATEWAY_SECRET_HEADER];
    if (typeof given !== 'string') return false;
    return timingSafeEqual(digest(given), expected);
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
