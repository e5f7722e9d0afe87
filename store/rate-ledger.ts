// The per-owner request rate shared by every process: one token bucket per owner, kept as GCRA's
// one number (the theoretical arrival time, TAT: the bucket is empty until then, and holds at
// most `burst` tokens' worth of time before it) in a chain of grants. A process takes tokens in
// chunks (callers/owner-rate-limit.ts spends them from memory), so the database sees one write per
// chunk, not per request.
//
// Each grant is a document `<scope>|<owner>|<n>` holding the TAT after it; the next grant is
// written under n + 1. Two processes granting at once both aim at n + 1, and the insert of a taken
// `_id` fails on both databases (FerretDB's updates are not atomic: owner-slots.ts), so the loser
// reads the winner's grant and computes again from it: the bucket is never spent twice. A
// process trusts the newest grant it knows for TRUST_MS; grants are pruned only once older than
// PRUNE_AFTER_MS, so the one after a grant it trusts is never pruned under it, and it can never
// write a number again. Times are the processes' clocks (ms since the epoch): a skew of d ms
// between two of them moves d ms' worth of tokens, nothing more.
import type { Collection, Db } from 'mongodb';
import { onlyDuplicateKeys } from './duplicate-key';

export interface RatePolicy {
  perSecond: number;
  burst: number;
}

export interface Grant {
  /** Tokens granted now (0: the bucket is empty). */
  granted: number;
  /** With none granted: when (ms since the epoch) one will be there. */
  nextAt: number;
}

interface GrantDoc {
  _id: string;
  tat: number;
  at: Date;
}

interface Tip {
  n: number;
  tat: number;
  learnedAt: number;
}

const TRUST_MS = 30_000;
const PRUNE_AFTER_MS = 60_000;
const PRUNE_EVERY = 16;
const TRIES = 20;
const MAX_OWNERS = 10_000;
const NUMBER_WIDTH = 12;
const owner64 = (owner: string) => Buffer.from(owner, 'utf8').toString('base64url');

export class RateLedger {
  private readonly docs: Collection<GrantDoc>;
  private readonly tips = new Map<string, Tip>();
  private readonly msPerToken: number;
  private readonly depthMs: number;

  /** `scope` keeps one policy's buckets apart from another's (the REST API's, the MCP path's). */
  constructor(db: Db, private readonly scope: string, policy: RatePolicy, private readonly now: () => number = Date.now) {
    this.docs = db.collection<GrantDoc>('owner_rate_grants');
    this.msPerToken = 1000 / policy.perSecond;
    this.depthMs = policy.burst * this.msPerToken;
  }

  /**
   * Charges `owed` tokens already spent (admitted before a grant came back; negative: tokens
   * granted and not used, given back) and grants up to `want` more, from the owner's bucket
   * shared by every process.
   */
  async take(owner: string, want: number, owed: number): Promise<Grant> {
    const prefix = `${this.scope}|${owner64(owner)}|`;
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const tip = await this.tipOf(owner, prefix);
      const now = this.now();
      // What was spent on credit is charged whatever the bucket holds: it was admitted. What is
      // given back (owed < 0) fills the bucket up to full, never beyond.
      const charged = Math.max(Math.max(tip.tat, now) + owed * this.msPerToken, now);
      const granted = Math.max(0, Math.min(want, Math.floor((now + this.depthMs - charged) / this.msPerToken)));
      const tat = charged + granted * this.msPerToken;
      if (granted === 0 && owed === 0) return { granted: 0, nextAt: tat - this.depthMs + this.msPerToken };
      const n = tip.n + 1;
      try {
        await this.docs.insertOne({ _id: prefix + String(n).padStart(NUMBER_WIDTH, '0'), tat, at: new Date(now) });
      } catch (err) {
        if (!onlyDuplicateKeys(err)) throw err;
        this.tips.delete(owner); // another process granted n: read the chain again
        continue;
      }
      this.remember(owner, { n, tat, learnedAt: now });
      if (n % PRUNE_EVERY === 0) await this.prune(prefix, now);
      return { granted, nextAt: tat - this.depthMs + this.msPerToken };
    }
    throw new Error(`the rate of ${owner} stayed contended for ${TRIES} tries`);
  }

  private async tipOf(owner: string, prefix: string): Promise<Tip> {
    const known = this.tips.get(owner);
    if (known && this.now() - known.learnedAt < TRUST_MS) return known;
    const [newest] = await this.docs.find({ _id: { $gte: prefix, $lt: `${prefix}~` } }).sort({ _id: -1 }).limit(1).toArray();
    const tip = newest ? { n: Number(newest._id.slice(prefix.length)), tat: newest.tat, learnedAt: this.now() } : { n: 0, tat: 0, learnedAt: this.now() };
    this.remember(owner, tip);
    return tip;
  }

  private remember(owner: string, tip: Tip): void {
    this.tips.delete(owner);
    this.tips.set(owner, tip);
    if (this.tips.size > MAX_OWNERS) this.tips.delete(this.tips.keys().next().value!);
  }

  private async prune(prefix: string, now: number): Promise<void> {
    await this.docs.deleteMany({ _id: { $gte: prefix, $lt: `${prefix}~` }, at: { $lt: new Date(now - PRUNE_AFTER_MS) } });
  }
}
