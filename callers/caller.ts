// Who is calling, once authenticated, and what that lets them see. Ownership is one rule for the
// REST API and the MCP path alike: a caller sees its own connectors; an admin sees all. With
// caller authentication off (the loopback default), every caller is the open caller.
//
// Owners are qualified by where their identity comes from (`key:<subject>` for an API key,
// `oidc:<subject>` for the identity provider's), so that a key named like a user of the identity
// provider can never act on that user's connectors, nor the other way round.

export interface Caller {
  /** The qualified owner a connector created by this caller gets; null with authentication off. */
  subject: string | null;
  /** A readable name for people (the token's email or name claim, else the subject as configured). */
  displayName: string | null;
  admin: boolean;
  /** The identity provider's role claim (toolset access rules grant by role); absent for API keys. */
  roles?: readonly string[];
}

export const OPEN_CALLER: Caller = Object.freeze({ subject: null, displayName: null, admin: true });

export const keyOwner = (subject: string): string => `key:${subject}`;
export const oidcOwner = (subject: string): string => `oidc:${subject}`;

/** Whether `caller` may see and act on a connector owned by `owner`. */
export function mayAccess(caller: Caller, owner: string | null): boolean {
  return caller.admin || (caller.subject !== null && caller.subject === owner);
}

/** The name an audit event gives the caller. */
export function actorOf(caller: Caller): string {
  return caller.subject ?? 'api';
}

/** No usable credential: 401. `given` tells a missing credential from a refused one. */
export class Unauthenticated extends Error {
  constructor(readonly given: boolean, message: string) {
    super(message);
  }
}

/** The identity provider could not be asked (discovery or keys unreachable): 503, not 401. */
export class IdentityProviderUnavailable extends Error {}
