// The per-owner cap on open MCP requests and streams (CONNECTOR__MAX_STREAMS_PER_OWNER) across
// processes: the owner's `limit` slots are leased (store/owner-leases.ts), each process leasing
// them in chunks for the exchanges it serves and counting in memory, so an exchange opens and
// closes with no call to the database. A process keeps a few slots spare, leases more before it
// runs out, gives back what it has not needed for a moment, and renews its leases while it lives
// (a process that dies leaves its slots taken until their leases expire, LEASE_MS).
//
// What that costs in precision: exchanges beyond the slots in hand are admitted on credit while
// more are leased (up to an eighth of the limit while the owner's slots are not known to run
// short, so that a client's requests at once are not refused for want of an answer; less once a
// claim came back short), and a process that finds the owner's
// slots all leased elsewhere refuses; slots spare in one process are not yet the other's. So the
// cluster admits the limit give or take a chunk per process. While the database cannot be
// reached each process holds the owner to the limit on its own.
import type { ServerResponse } from 'node:http';
import type { ExchangeCounter } from './open-exchanges';

export interface StreamLeases {
  claim(owner: string, holder: string, count: number, limit: number, ttlMs: number): Promise<string[]>;
  renew(holder: string, ids: readonly string[], ttlMs: number): Promise<void>;
  release(holder: string, ids: readonly string[]): Promise<void>;
}

interface OwnerShare {
  held: string[];
  open: number;
  claiming: boolean;
  /** The last claim got fewer slots than it asked for: they run short, credit is small. */
  short: boolean;
  /** The owner's slots were all leased at the last claim: no credit, no claim, until then. */
  fullUntil: number;
  lastBusy: number;
}

export const LEASE_MS = 15_000;
const TIDY_MS = 1_000;
const QUIET_MS = 2_000;
const FULL_BACKOFF_MS = 250;

export class SharedExchanges implements ExchangeCounter {
  private readonly shares = new Map<string, OwnerShare>();
  private readonly keyOf = Symbol('shared-exchange-owner');
  private readonly release: (this: ServerResponse) => void;
  private readonly chunk: number;
  private readonly credit: number;
  private readonly coldCredit: number;
  private readonly timers: NodeJS.Timeout[];
  /** The leases could not be reached: each owner counted here alone until then. */
  private downUntil = 0;

  constructor(
    private readonly leases: StreamLeases,
    private readonly holder: string,
    private readonly limit: number,
    private readonly onFailure: (err: unknown) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.chunk = Math.min(64, Math.max(1, Math.ceil(limit / 16)));
    this.credit = Math.max(1, Math.floor(limit / 32));
    this.coldCredit = Math.max(this.credit, Math.ceil(limit / 8));
    const { shares, keyOf } = this;
    // One listener for every response, no closure per exchange (open-exchanges.ts).
    this.release = function release(this: ServerResponse) {
      const share = shares.get((this as ServerResponse & Record<symbol, string>)[keyOf]!);
      if (!share) return;
      share.open -= 1;
      share.lastBusy = now();
    };
    this.timers = [setInterval(() => this.tidy(), TIDY_MS), setInterval(() => void this.renew(), LEASE_MS / 3)];
    for (const timer of this.timers) timer.unref();
  }

  take(owner: string, res: ServerResponse): boolean {
    if (res.closed) return true; // its client left already: nothing to count (ExchangeCounter.take)
    const now = this.now();
    let share = this.shares.get(owner);
    if (!share) this.shares.set(owner, (share = { held: [], open: 0, claiming: false, short: false, fullUntil: 0, lastBusy: now }));
    const credit = share.short ? this.credit : this.coldCredit;
    const room = now < this.downUntil
      ? share.open < this.limit
      : share.open < share.held.length || (now >= share.fullUntil && share.open < share.held.length + credit);
    if (!room) return false;
    share.open += 1;
    share.lastBusy = now;
    (res as ServerResponse & Record<symbol, string>)[this.keyOf] = owner;
    res.on('close', this.release);
    if (share.held.length - share.open < Math.ceil(this.chunk / 2)) this.claim(owner, share);
    return true;
  }

  count(owner: string): number {
    return this.shares.get(owner)?.open ?? 0;
  }

  /** Gives every slot back (the process is stopping). */
  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    const held = [...this.shares.values()].flatMap((s) => s.held);
    this.shares.clear();
    await this.leases.release(this.holder, held).catch(() => undefined);
  }

  private claim(owner: string, share: OwnerShare): void {
    if (share.claiming || this.now() < share.fullUntil) return;
    share.claiming = true;
    const want = Math.max(this.chunk, share.open - share.held.length + Math.ceil(this.chunk / 2));
    this.leases.claim(owner, this.holder, want, this.limit, LEASE_MS).then((ids) => {
      share.held.push(...ids);
      share.short = ids.length < want;
      share.fullUntil = ids.length < want ? this.now() + FULL_BACKOFF_MS : 0;
    }, (err: unknown) => {
      if (this.now() >= this.downUntil) this.onFailure(err);
      this.downUntil = this.now() + 5_000;
    }).finally(() => (share.claiming = false));
  }

  /** Once an owner has been quiet here for a moment, its slots beyond a chunk spare go back (all of them when none is open). */
  private tidy(): void {
    const now = this.now();
    for (const [owner, share] of this.shares) {
      if (share.claiming || now - share.lastBusy < QUIET_MS) continue;
      const spare = share.held.splice(share.open === 0 ? 0 : share.open + this.chunk);
      if (spare.length) void this.leases.release(this.holder, spare).catch(() => undefined);
      if (share.open <= 0 && share.held.length === 0) this.shares.delete(owner);
    }
  }

  private async renew(): Promise<void> {
    const held = [...this.shares.values()].flatMap((s) => s.held);
    if (held.length) await this.leases.renew(this.holder, held, LEASE_MS).catch((err: unknown) => this.onFailure(err));
  }
}
