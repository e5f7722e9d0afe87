// The per-owner request rate limit (CONNECTOR__RATE_LIMIT_PER_OWNER), one rule for the REST API
// and the MCP path: a token bucket per owner, refilled at `perSecond` up to `burst`. Per process:
// with several API or proxy processes each holds its own buckets, so an owner's ceiling is the
// limit times the processes it reaches. Memory is bounded: at most MAX_OWNERS buckets, the least
// recently used dropped first (a dropped owner starts again with a full bucket, which only ever
// favours that owner). Refusals carry Retry-After and the IETF RateLimit-Policy / RateLimit
// fields (draft-ietf-httpapi-ratelimit-headers: a quota `q` over a window `w` in seconds, and
// the remaining quota `r` with the seconds `t` until more is available).

import type { RateLimitSettings } from '../config/config';

export interface RateRefusal {
  /** Whole seconds until a request would be admitted again (at least 1). */
  retryAfterSeconds: number;
  /** Retry-After, RateLimit-Policy and RateLimit, for the 429. */
  headers: Record<string, string>;
}

interface Bucket {
  tokens: number;
  atMs: number;
}

export const MAX_OWNERS = 10_000;
const POLICY = 'owner';

export class OwnerRateLimit {
  private readonly buckets = new Map<string, Bucket>();
  /** A bucket's capacity and refill, as the policy field states them: `burst` per `burst / perSecond` seconds. */
  private readonly policy: string;

  constructor(private readonly settings: RateLimitSettings, private readonly maxOwners = MAX_OWNERS, private readonly now: () => number = Date.now) {
    const window = Math.max(1, Math.ceil(settings.burst / settings.perSecond));
    this.policy = `"${POLICY}";q=${settings.burst};w=${window}`;
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Takes one request from the owner's bucket: null when admitted, the refusal otherwise. */
  take(owner: string): RateRefusal | null {
    const now = this.now();
    const bucket = this.refilled(owner, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return null;
    }
    const seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / this.settings.perSecond));
    return {
      retryAfterSeconds: seconds,
      headers: { 'retry-after': String(seconds), 'ratelimit-policy': this.policy, ratelimit: `"${POLICY}";r=0;t=${seconds}` },
    };
  }

  /** The owner's bucket brought up to now, moved to the most recently used end. */
  private refilled(owner: string, now: number): Bucket {
    const known = this.buckets.get(owner);
    const bucket = known ?? { tokens: this.settings.burst, atMs: now };
    if (known) {
      const elapsed = Math.max(0, now - bucket.atMs) / 1000;
      bucket.tokens = Math.min(this.settings.burst, bucket.tokens + elapsed * this.settings.perSecond);
      bucket.atMs = now;
      this.buckets.delete(owner);
    }
    this.buckets.set(owner, bucket);
    if (this.buckets.size > this.maxOwners) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    return bucket;
  }
}
