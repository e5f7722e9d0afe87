// Counts the exchanges open per key (a connector) and refuses one past the limit; each is
// released when its response closes, however it ends.
import type { ServerResponse } from 'node:http';

export class OpenExchanges {
  private readonly open = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** Counts one more for `key` until `res` closes; false, counting nothing, past the limit. */
  take(key: string, res: ServerResponse): boolean {
    const count = this.open.get(key) ?? 0;
    if (count >= this.limit) return false;
    this.open.set(key, count + 1);
    res.once('close', () => {
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    });
    return true;
  }

  count(key: string): number {
    return this.open.get(key) ?? 0;
  }
}
