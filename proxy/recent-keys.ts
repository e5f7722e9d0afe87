// A bounded memory of keys seen within a time window: how the proxy tells the registry about
// something once, however many requests notice it at the same time.

export class RecentKeys {
  private readonly seenAt = new Map<string, number>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** True the first time `key` is offered within the window (and it is remembered from now on). */
  claim(key: string): boolean {
    const now = this.now();
    const at = this.seenAt.get(key);
    if (at !== undefined && now - at < this.windowMs) return false;
    this.seenAt.delete(key); // re-insert so Map order is age order
    this.seenAt.set(key, now);
    if (this.seenAt.size > this.maxKeys) this.dropOldest(now);
    return true;
  }

  private dropOldest(now: number): void {
    for (const [key, at] of this.seenAt) {
      if (this.seenAt.size <= this.maxKeys && now - at < this.windowMs) return;
      this.seenAt.delete(key);
    }
  }
}
