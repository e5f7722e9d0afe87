// The URL a connector's user opens, read from its authorization request. Apart from the record's
// schemas (connector-record.ts) because the connector workflow reads it, and a workflow evaluates
// everything it imports once per cached workflow.
import type { AuthRequest } from './connector-record';

/** The URL a user opens to authorize, when the request on offer is one (an assertion request has none). */
export function authorizationUrlOf(request: AuthRequest | null | undefined): string | null {
  return request?.type === 'code' ? request.authorization_endpoint : null;
}
