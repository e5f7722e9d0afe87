// Static API keys (CONNECTOR__API_KEYS): stored as SHA-256, compared in constant time against
// every entry, so neither the key nor which entry matched shows in the answer's timing.
import { createHash, hash, timingSafeEqual } from 'node:crypto';
import type { ApiKeyEntry } from '../config/config';
import { keyOwner, type Caller } from './caller';

export class ApiKeys {
  private readonly entries: { digest: Buffer; caller: Caller }[];

  constructor(entries: readonly ApiKeyEntry[]) {
    this.entries = entries.map((e) => ({ digest: Buffer.from(e.sha256, 'hex'), caller: { subject: keyOwner(e.subject), displayName: e.subject, admin: e.admin } }));
  }

  get size(): number {
    return this.entries.length;
  }

  /** The caller this key belongs to, or null. `digest`: the credential's, when the caller has it already. */
  match(credential: string, digest: string = credentialDigest(credential)): Caller | null {
    const bytes = Buffer.from(digest, 'base64');
    let found: Caller | null = null;
    for (const entry of this.entries) {
      if (timingSafeEqual(bytes, entry.digest)) found = entry.caller;
    }
    return found;
  }
}

/**
 * A credential's SHA-256 in base64, computed once per request: the API keys compare its bytes and
 * the verified access tokens are keyed by it (verified-tokens.ts). One-shot hashing to a string
 * (no Hash object): about a quarter of createHash's cost here, and of hash()'s to a Buffer.
 */
export function credentialDigest(credential: string): string {
  return hash('sha256', credential, 'base64');
}

export function sha256Hex(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
