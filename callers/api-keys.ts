// Static API keys (CONNECTOR__API_KEYS): stored as SHA-256, compared in constant time against
// every entry, so neither the key nor which entry matched shows in the answer's timing.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiKeyEntry } from '../core/config';
import { keyOwner, type Caller } from './caller';

export class ApiKeys {
  private readonly entries: { digest: Buffer; caller: Caller }[];

  constructor(entries: readonly ApiKeyEntry[]) {
    this.entries = entries.map((e) => ({ digest: Buffer.from(e.sha256, 'hex'), caller: { subject: keyOwner(e.subject), displayName: e.subject, admin: e.admin } }));
  }

  get size(): number {
    return this.entries.length;
  }

  /** The caller this key belongs to, or null. */
  match(credential: string): Caller | null {
    const digest = createHash('sha256').update(credential, 'utf8').digest();
    let found: Caller | null = null;
    for (const entry of this.entries) {
      if (timingSafeEqual(digest, entry.digest)) found = entry.caller;
    }
    return found;
  }
}

export function sha256Hex(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
