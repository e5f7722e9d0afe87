// Where the console keeps the credential: sessionStorage, never localStorage (docs/console.md
// says why). It lives as long as the tab: a reload keeps the user signed in, closing the tab
// signs out, and no other tab, window or later browser session ever reads it.
import type { Credential } from './api';

const KEY = 'connector-console:credential';
// The sign-in's ID token, kept beside the access token for as long: an enterprise-managed connect
// (SEP-990) sends it as the user's identity assertion, and the service checks it names the user.
const ID_TOKEN = 'connector-console:id-token';

interface Stored {
  kind: 'key' | 'oidc';
  value: string;
  /** Access tokens only: past it the token is dropped instead of being sent to be refused. */
  expiresAt?: number;
}

export function storedCredential(): Credential {
  const raw = sessionStorage.getItem(KEY);
  if (!raw) return null;
  try {
    const stored = JSON.parse(raw) as Stored;
    if (stored.expiresAt !== undefined && stored.expiresAt <= Date.now()) {
      forgetCredential();
      return null;
    }
    return { kind: stored.kind, value: stored.value };
  } catch {
    forgetCredential();
    return null;
  }
}

export function keepCredential(credential: NonNullable<Credential>, expiresInSeconds?: number): void {
  const stored: Stored = { ...credential, ...(expiresInSeconds ? { expiresAt: Date.now() + expiresInSeconds * 1000 } : {}) };
  sessionStorage.setItem(KEY, JSON.stringify(stored));
}

export function forgetCredential(): void {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(ID_TOKEN);
}

export function keepIdToken(idToken: string): void {
  sessionStorage.setItem(ID_TOKEN, idToken);
}

/** The sign-in's ID token while its exp is ahead, else null (an expired one would only be refused). */
export function signInIdToken(): string | null {
  const token = sessionStorage.getItem(ID_TOKEN);
  if (!token) return null;
  try {
    const payload = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number };
    if (payload.exp === undefined || payload.exp * 1000 > Date.now()) return token;
  } catch {
    // not a JWT: dropped below
  }
  sessionStorage.removeItem(ID_TOKEN);
  return null;
}
