// Counts the exchanges open per key (a connector, or an owner in one process) and refuses one past
// the limit; each is released when its response closes, however it ends.
import type { ServerResponse } from 'node:http';

/** What counts exchanges per key: this process's own count, or one shared with other processes (shared-exchanges.ts). */
export interface ExchangeCounter {
  /**
   * Counts one more for `key` until `res` closes; false, counting nothing, past the limit. A
   * response already closed (its client left while it was authenticated, routed or read) is not
   * counted: its 'close' has been emitted and will not be again, so it would hold a place for good.
   */
  take(key: string, res: ServerResponse): boolean;
  count(key: string): number;
  close?(): Promise<void>;
}

export class OpenExchanges implements ExchangeCounter {
  private readonly open = new Map<string, number>();
  /** Where this counter keeps a response's key: one listener for all responses, no closure per request. */
  private readonly keyOf = Symbol('open-exchange-key');
  private readonly release: (this: ServerResponse) => void;

  constructor(private readonly limit: number) {
    const { open, keyOf } = this;
    this.release = function release(this: ServerResponse) {
      const key = (this as ServerResponse & Record<symbol, string>)[keyOf]!;
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    };
  }

  /** Counts one more for `key` until `res` closes; false, counting nothing, past the limit. */
  take(key: string, res: ServerResponse): boolean {
    if (res.closed) return true; // its client left already: nothing to count (ExchangeCounter.take)
    const count = this.open.get(key) ?? 0;
    if (count >= this.limit) return false;
    this.open.set(key, count + 1);
    (res as ServerResponse & Record<symbol, string>)[this.keyOf] = key;
    // 'close' is emitted once per response: `on` spares the once-wrapper.
    res.on('close', this.release);
    return true;
  }

  count(key: string): number {
    return this.open.get(key) ?? 0;
  }
}
