// Static API keys (CONNECTOR__API_KEYS): stored as SHA-256, compared in constant time against
// every entry, so neither the key nor which entry matched shows in the answer's timing.
import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Caller } from './caller';

export const ApiKeysSchema = z.array(z.strictObject({
  subject: z.string().min(1).max(256),
  sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be the hex SHA-256 of the key'),
  admin: z.boolean().default(false),
}));
export type ApiKeyEntry = z.infer<typeof ApiKeysSchema>[number];

export class ApiKeys {
  private readonly entries: { digest: Buffer; caller: Caller }[];

  constructor(entries: readonly ApiKeyEntry[]) {
    this.entries = entries.map((e) => ({ digest: Buffer.from(e.sha256, 'hex'), caller: { subject: e.subject, admin: e.admin } }));
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
