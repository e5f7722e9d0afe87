// Deadlines of the upstream requests under way, without a timer each. A `setTimeout` per request
// cost the proxy more than any function of its own (issue 42's profile: node's timer list was
// created, queued and scheduled through libuv again whenever it had emptied, about 6 µs a
// request, against 0.1 µs for http-proxy's floor). Here a request's deadline is one entry in a
// Set, and one interval timer, running only while deadlines are pending, expires them. A
// deadline fires up to one tick late: a tenth of the timeout, between 10 ms and 1 s.
import { performance } from 'node:perf_hooks';

/** What waits for a deadline: when it is due (performance.now() ms), and what expiry does. */
export interface Deadline {
  dueAt: number;
  onDue(): void;
}

export class DeadlineSweep {
  private readonly pending = new Set<Deadline>();
  private ticker: NodeJS.Timeout | null = null;
  private readonly tickMs: number;

  constructor(readonly timeoutMs: number) {
    this.tickMs = Math.max(10, Math.min(1000, Math.floor(timeoutMs / 10)));
  }

  /** Starts (or restarts) the deadline `timeoutMs` from now. */
  arm(deadline: Deadline): void {
    deadline.dueAt = performance.now() + this.timeoutMs;
    this.pending.add(deadline);
    this.ticker ??= setInterval(() => this.sweep(), this.tickMs).unref();
  }

  disarm(deadline: Deadline): void {
    this.pending.delete(deadline);
  }

  /** How many deadlines are pending (for tests and metrics). */
  get size(): number {
    return this.pending.size;
  }

  private sweep(): void {
    if (this.pending.size === 0) {
      clearInterval(this.ticker!);
      this.ticker = null;
      return;
    }
    const now = performance.now();
    for (const deadline of this.pending) {
      if (deadline.dueAt > now) continue;
      this.pending.delete(deadline);
      deadline.onDue();
    }
  }
}
