// SEP-2352 (MCP 2026-07-28): a connector is bound to the authorization server that issued its
// grant, and credentials made for one authorization server are never sent to another (client ids
// are unique to the server that issued them, RFC 6749 section 2.2). When new protected-resource
// metadata names another server, the service registers again there (registrations are kept per
// issuer: client-identity.ts) and the user authorizes again; only client credentials that someone
// gave (at create, or in the preset) cannot be remade, so they are refused rather than sent on.
import { AuthorizationServerChangedError } from './errors';

export interface BindingCheck {
  /** The issuer the connector's last grant came from; null when it never had one. */
  boundIssuer: string | null;
  /** The issuer discovery found now. */
  issuer: string;
  /** Whether the client credentials were given (create request or preset) rather than made by the service. */
  givenCredentials: boolean;
}

/** Whether the authorization server changed; throws where given credentials would go to the new one. */
export function checkAuthorizationServerBinding(input: BindingCheck): { changed: boolean } {
  if (input.boundIssuer === null || input.boundIssuer === input.issuer) return { changed: false };
  if (input.givenCredentials) {
    throw new AuthorizationServerChangedError(
      `the MCP server now names the authorization server ${input.issuer}, not ${input.boundIssuer} where the connector's client credentials were used; they are not sent to another server: create the connector again with a client_id registered at ${input.issuer}`,
    );
  }
  return { changed: true };
}
