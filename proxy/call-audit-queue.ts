// The per-call audit's way to the database, off the request's path: calls wait in a bounded queue
// and are written in batches (by size, or every interval), one batch at a time. Nothing here can
// hold up or fail a request: a full queue drops the call, a failing database drops the batch,
// and both are counted (mcp_call_audit_dropped_total) and the failure logged.
import type { CallEntry } from '../contract/call-record';
import { withoutUrlSecrets, type Logger } from '../platform/logger';
import type { Metrics } from '../platform/metrics';

/** Where the observer of each request hands its call. */
export interface CallSink {
  record(entry: CallEntry): void;
  /** A relayed answer showed a task of the server's own in `entry.task.status`: a row if that is a change. */
  recordServerTask?(entry: CallEntry): void;
}

export interface CallAuditQueueOptions {
  /** Writes one batch (an unordered insertMany). */
  write(entries: CallEntry[]): Promise<void>;
  /** Writes the row of a server's task status where it is a change (absent: such rows are not kept). */
  writeServerTask?(entry: CallEntry): Promise<void>;
  /** Calls waiting or being written, at most; past it new calls are dropped. */
  capacity: number;
  /** Largest batch written at once (default 2,000: a batch costs mostly its commands, not its calls; docs/scale.md). */
  batchSize?: number;
  /** How long a call waits for its batch at most (default 1 s). */
  intervalMs?: number;
  logger: Logger;
  metrics?: Pick<Metrics, 'callAuditWritten' | 'callAuditDropped'>;
}

/** How long close() waits for the last batches. */
const CLOSE_WAIT_MS = 5_000;

export class CallAuditQueue implements CallSink {
  private pending: CallEntry[] = [];
  /** Statuses of servers' tasks, written one after another (few: answers to tasks/* only). */
  private keyed: CallEntry[] = [];
  private writingKeyed: Promise<void> | null = null;
  private inFlight = 0;
  private writing: Promise<void> | null = null;
  private flushQueued = false;
  private readonly batchSize: number;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly o: CallAuditQueueOptions) {
    this.batchSize = Math.max(1, Math.min(o.batchSize ?? 2_000, o.capacity));
    this.timer = setInterval(() => this.flush(), o.intervalMs ?? 1_000);
    this.timer.unref();
  }

  record(entry: CallEntry): void {
    if (this.pending.length + this.inFlight >= this.o.capacity) {
      this.o.metrics?.callAuditDropped.inc({ reason: 'queue_full' });
      return;
    }
    this.pending.push(entry);
    // A full batch goes at the next turn of the event loop, not inside the closing response's event.
    if (this.pending.length >= this.batchSize && !this.flushQueued) {
      this.flushQueued = true;
      setImmediate(() => {
        this.flushQueued = false;
        this.flush();
      });
    }
  }

  recordServerTask(entry: CallEntry): void {
    if (!this.o.writeServerTask) return;
    if (this.size >= this.o.capacity) {
      this.o.metrics?.callAuditDropped.inc({ reason: 'queue_full' });
      return;
    }
    this.keyed.push(entry);
    this.writingKeyed ??= this.writeKeyed();
  }

  /** Calls waiting or being written. */
  get size(): number {
    return this.pending.length + this.inFlight + this.keyed.length;
  }

  private async writeKeyed(): Promise<void> {
    for (let next = this.keyed[0]; next; next = this.keyed[0]) {
      await this.o.writeServerTask!(next).then(
        () => this.o.metrics?.callAuditWritten.inc(1),
        (err: unknown) => this.dropped(err, 1),
      );
      this.keyed.shift();
    }
    this.writingKeyed = null;
  }

  private dropped(err: unknown, count: number): void {
    this.o.metrics?.callAuditDropped.inc({ reason: 'write_failed' }, count);
    const { name, code, message } = err as { name?: string; code?: unknown; message?: string };
    this.o.logger.warn({ err: { name, code, message: withoutUrlSecrets(message) }, dropped: count }, 'call audit batch not written');
  }

  private flush(): void {
    if (this.writing || this.pending.length === 0) return;
    const batch = this.pending.length <= this.batchSize ? this.pending : this.pending.slice(0, this.batchSize);
    this.pending = batch === this.pending ? [] : this.pending.slice(batch.length);
    this.inFlight = batch.length;
    this.writing = this.o.write(batch).then(
      () => this.o.metrics?.callAuditWritten.inc(batch.length),
      (err: unknown) => this.dropped(err, batch.length),
    ).finally(() => {
      this.writing = null;
      this.inFlight = 0;
      if (this.pending.length >= this.batchSize) this.flush();
    });
  }

  /** Stops the timer and writes what waits, for a few seconds at most. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const deadline = Date.now() + CLOSE_WAIT_MS;
    while ((this.writing || this.pending.length || this.writingKeyed) && Date.now() < deadline) {
      this.flush();
      await Promise.race([this.writing ?? this.writingKeyed, new Promise((r) => setTimeout(r, deadline - Date.now()).unref())]);
    }
  }
}
