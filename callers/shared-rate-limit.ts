// The per-owner request rate across processes: each process spends tokens from memory (no call on
// a request's path) and takes them from the owner's bucket shared by every process
// (store/rate-ledger.ts) in chunks, a new chunk asked for before the last runs out.
//
// What that costs in precision, per process serving the owner: requests beyond the tokens in hand
// are admitted on credit while a chunk is on its way (up to a quarter of the burst while the bucket
// is not known to run short, so that a client's requests at once are not refused for want of an
// answer; a chunk once a grant came back short), and what was admitted on credit is charged to the
// shared bucket however empty it is, so it is paid for by later refusals; tokens a process holds
// and does not use are given back once the owner has been quiet for a moment. Over any window the
// cluster admits the policy's burst plus its rate, give or take a chunk per process.
import type { RateLimitSettings } from '../config/config';

export interface SharedRateBucket {
  /**
   * Charges `owed` tokens (spent on credit, or given back when negative) and grants up to `want`
   * more from the owner's bucket; with none granted, `nextAt` (ms since the epoch) says when one
   * will be there.
   */
  take(owner: string, want: number, owed: number): Promise<{ granted: number; nextAt: number }>;
}

interface Share {
  /** Tokens granted and not yet spent. */
  hand: number;
  /** Requests admitted on credit, not yet charged. */
  debt: number;
  claiming: boolean;
  /** Requests refused while a chunk was on its way: the next chunk is larger. */
  pressed: boolean;
  /** The shared bucket is empty until then (ms since the epoch). */
  emptyUntil: number;
  /** The bucket's last answer granted less than asked: it runs short, credit is small. */
  short: boolean;
  lastUse: number;
}

export type Verdict = { admitted: true } | { admitted: false; retryAfterMs: number };
const ADMITTED: Verdict = { admitted: true };

const QUIET_MS = 250;
const MAX_OWNERS = 10_000;

export class SharedRateLimit {
  private readonly shares = new Map<string, Share>();
  private readonly chunk: number;
  private readonly largeChunk: number;
  private readonly credit: number;
  private readonly msPerToken: number;
  private readonly giveBack: NodeJS.Timeout;

  constructor(
    private readonly bucket: SharedRateBucket,
    settings: RateLimitSettings,
    /** Told when the shared bucket cannot be reached; the caller decides what to do meanwhile. */
    private readonly onFailure: (err: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.msPerToken = 1000 / settings.perSecond;
    // About a tenth of a second's worth, and never more than a tenth of the burst: what one
    // process may hold unused, or admit on credit, stays small beside what the policy allows.
    const tenth = Math.max(1, Math.floor(settings.burst / 10));
    this.chunk = Math.min(tenth, Math.max(1, Math.ceil(settings.perSecond / 10)));
    this.largeChunk = tenth;
    this.credit = Math.max(this.chunk, Math.ceil(settings.burst / 4));
    this.giveBack = setInterval(() => this.returnUnused(), QUIET_MS);
    this.giveBack.unref();
  }

  take(owner: string): Verdict {
    const now = this.now();
    const share = this.shareOf(owner, now);
    share.lastUse = now;
    if (share.hand >= 1) {
      share.hand -= 1;
      if (share.hand < this.chunk) this.claim(owner, share);
      return ADMITTED;
    }
    if (now < share.emptyUntil) return { admitted: false, retryAfterMs: share.emptyUntil - now };
    if (share.debt < (share.short ? this.chunk : this.credit)) {
      share.debt += 1;
      this.claim(owner, share);
      return ADMITTED;
    }
    share.pressed = true;
    return { admitted: false, retryAfterMs: this.msPerToken };
  }

  close(): void {
    clearInterval(this.giveBack);
  }

  private shareOf(owner: string, now: number): Share {
    let share = this.shares.get(owner);
    if (share) return share;
    share = { hand: 0, debt: 0, claiming: false, pressed: false, emptyUntil: 0, short: false, lastUse: now };
    this.shares.set(owner, share);
    // An owner dropped here holds nothing unpaid for long: its debt is at most a chunk.
    if (this.shares.size > MAX_OWNERS) this.shares.delete(this.shares.keys().next().value!);
    return share;
  }

  private claim(owner: string, share: Share, want = share.pressed ? this.largeChunk : this.chunk): void {
    if (share.claiming) return;
    share.claiming = true;
    share.pressed = false;
    const owed = share.debt;
    this.bucket.take(owner, want, owed).then(({ granted, nextAt }) => {
      share.debt -= owed;
      share.hand += granted;
      share.short = granted < want;
      share.emptyUntil = granted === 0 ? nextAt : 0;
      share.claiming = false;
      // Admitted on credit meanwhile: charged now rather than left to the owner's next request.
      if (share.debt > 0) this.claim(owner, share);
    }, (err: unknown) => {
      share.claiming = false;
      this.onFailure(err);
    });
  }

  /** Tokens of owners quiet for a moment go back to their buckets, for other processes to grant. */
  private returnUnused(): void {
    const now = this.now();
    for (const [owner, share] of this.shares) {
      if (now - share.lastUse < QUIET_MS || share.claiming) continue;
      const unused = Math.floor(share.hand);
      if (unused === 0) {
        if (share.debt === 0) this.shares.delete(owner);
        continue;
      }
      // Charged as negative debt: given back.
      share.hand -= unused;
      share.debt -= unused;
      this.claim(owner, share, 0);
    }
  }
}
