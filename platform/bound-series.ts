// Series updated on every request, bound once per label set. prom-client hashes and validates the
// labels on every inc/observe and each caller allocates a labels object: on the MCP path that was
// a measurable share of the proxy's own cost per request (issue 29). Here a request finds its
// label set's cell by one Map lookup on a string key, adds to it, and prom-client receives the
// sums when it is read (its `collect` hook, run before every scrape or get()), so what a scrape
// shows is exact. The cells live as long as the series do (prom-client keeps every label set
// too), and the keys are built only from labels that are bounded already.
import type { Counter, Gauge, LabelValues } from 'prom-client';

export interface CounterCell<L extends string> {
  readonly labels: LabelValues<L>;
  /** Added since the last scrape. */
  n: number;
}

type Collectable = { collect?: (this: unknown) => unknown };

/** Runs `flush` before whatever `collect` the metric already had. */
export function beforeCollect(metric: Counter<string> | Gauge<string>, flush: () => void): void {
  const m = metric as unknown as Collectable;
  const previous = m.collect;
  m.collect = function collect(this: unknown) {
    flush();
    return previous?.call(this);
  };
}

/** Cells by key, each made once with its frozen labels. */
abstract class BoundCells<L extends string> {
  protected readonly cells = new Map<string, CounterCell<L>>();

  /** `labels` is called only the first time a key is seen. */
  cell(key: string, labels: () => LabelValues<L>): CounterCell<L> {
    let cell = this.cells.get(key);
    if (cell === undefined) {
      cell = { labels: Object.freeze(labels()), n: 0 };
      this.cells.set(key, cell);
    }
    return cell;
  }

  abstract flush(): void;
}

/** A counter's cells: `cell(key, labels)` once per request, then `cell.n += value`. */
export class BoundCounter<L extends string> extends BoundCells<L> {
  constructor(private readonly counter: Counter<L>) {
    super();
    beforeCollect(counter as Counter<string>, () => this.flush());
  }

  flush(): void {
    for (const cell of this.cells.values()) {
      if (cell.n === 0) continue;
      this.counter.inc(cell.labels, cell.n);
      cell.n = 0;
    }
  }
}

/** A gauge of things open per key, counted here and set on the gauge at each scrape. */
export class BoundGauge<L extends string> extends BoundCells<L> {
  constructor(private readonly gauge: Gauge<L>) {
    super();
    beforeCollect(gauge as Gauge<string>, () => this.flush());
  }

  flush(): void {
    // Every key seen stays in the series, at 0 once nothing is open (as inc/dec left it before).
    for (const cell of this.cells.values()) this.gauge.set(cell.labels, cell.n);
  }
}
