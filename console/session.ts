// Where the console keeps the credential: sessionStorage, never localStorage (docs/console.md
// says why). It lives as long as the tab: a reload keeps the user signed in, closing the tab
// signs out, and no other tab, window or later browser session ever reads it.
import type { Credential } from './api';

const KEY = 'connector-console:credential';

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
}
