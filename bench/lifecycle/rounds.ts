// One round of the lifecycle bench: `count` items, `concurrency` at a time, each timed; and the
// percentiles the report prints.

export interface ItemTiming {
  /** The step the report compares: connect for connectors, the Update for the bare loop. */
  stepMs: number;
  /** The step before it, where there is one (create, for connectors). */
  beforeMs?: number;
  ok: boolean;
}

export interface RoundResult {
  wallMs: number;
  items: ItemTiming[];
}

export async function runRound(count: number, concurrency: number, item: (index: number) => Promise<ItemTiming>): Promise<RoundResult> {
  const items: ItemTiming[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const index = next++;
      items.push(await item(index).catch(() => ({ stepMs: 0, ok: false })));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { wallMs: performance.now() - started, items };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Items per second over several rounds: all items over all wall time. */
export function throughput(rounds: RoundResult[]): number {
  const items = rounds.reduce((n, r) => n + r.items.filter((i) => i.ok).length, 0);
  const ms = rounds.reduce((n, r) => n + r.wallMs, 0);
  return (items * 1000) / ms;
}
