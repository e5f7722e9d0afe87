// Access tokens already verified, so that an agent sending the same token on every MCP call pays
// for one signature check rather than one per call (an ES256 verify costs more than the rest of
// the proxy's work on a request). Keyed by the token's SHA-256, never by a part of it (a `kid`
// or `sub` alone would let another token ride on a verified one), and never the token itself,
// so a heap dump holds no usable credential. An entry lives until the token's `exp`, and no
// longer than the verifier trusts its key set without refetching it, so a key withdrawn from
// the JWKS stops being honoured as soon as it would without the cache. Bounded: the oldest
// entry goes first. Refusals are never cached (a token refused for a missing key may become
// valid once the JWKS publishes it).
import { createHash } from 'node:crypto';
import type { Caller } from './caller';

export interface VerifiedToken {
  caller: Caller;
  /** The token's `aud` values: checked on every use, since accepted audiences vary by path. */
  audiences: readonly string[];
  /** Epoch milliseconds after which the entry is not used. */
  validUntilMs: number;
}

export class VerifiedTokens {
  private readonly entries = new Map<string, VerifiedToken>();

  constructor(private readonly maxEntries = 10_000, private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.entries.size;
  }

  static keyOf(token: string): string {
    return createHash('sha256').update(token, 'utf8').digest('base64');
  }

  /** keyOf, from the token's SHA-256 in base64 already computed (api-keys.ts credentialDigest): itself. */
  static keyOfDigest(digest: string): string {
    return digest;
  }

  /** The caller, when the token was verified and is still valid and one of `accepted` is in its audience. */
  lookup(key: string, accepted: readonly string[]): Caller | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (this.now() >= entry.validUntilMs) {
      this.entries.delete(key);
      return null;
    }
    return entry.audiences.some((aud) => accepted.includes(aud)) ? entry.caller : null;
  }

  remember(key: string, entry: VerifiedToken): void {
    if (entry.validUntilMs <= this.now()) return;
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
