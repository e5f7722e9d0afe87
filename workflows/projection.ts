// Applies transitions to the entity and writes them to MongoDB (record and audit trail), one
// write at a time and in order. The writes are regular activities (activity-proxies.ts), so what
// MongoDB shows is always a transition Temporal has persisted.
import { ApplicationFailure, CancellationScope, condition } from '@temporalio/workflow';
import type { AuditEvent, ProjectedVersion } from '../contract/connector-record';
import type { ConnectorEvent } from '../contract/connector-states';
import { FAILURE } from '../contract/failures';
import { store } from './activity-proxies';
import { InvalidTransition, type ApplyOptions, type ConnectorEntity } from './connector-entity';

export type CommitOptions = ApplyOptions & {
  /** Write together with the next commit: one write for a step as short as a token probe. */
  recordWithNext?: boolean;
};

export class Projection {
  /** The last transition number known to be in MongoDB. */
  private projectedSeq: number;
  private unrecorded: AuditEvent[] = [];
  private lastWrite: Promise<void> = Promise.resolve();
  /**
   * The version the write before the next one leaves in MongoDB (null: none yet), sent with the
   * next so that the store need not read it first. A guess where a write failed: the store reads
   * where it does not hold.
   */
  private lastWritten: ProjectedVersion | null;

  constructor(private readonly entity: ConnectorEntity, projectedSeq: number) {
    this.projectedSeq = projectedSeq;
    this.lastWritten = projectedSeq === 0 ? null : { version: projectedSeq, state: entity.state };
  }

  /** Applies `event` and writes it; a transition the state machine refuses fails the caller with 409. */
  async commit(event: ConnectorEvent, options: CommitOptions): Promise<void> {
    let audit: AuditEvent;
    try {
      audit = this.entity.apply(event, new Date().toISOString(), options);
    } catch (err) {
      if (err instanceof InvalidTransition) throw ApplicationFailure.create({ type: FAILURE.invalidTransition, message: err.message, nonRetryable: true });
      throw err;
    }
    this.unrecorded.push(audit);
    if (options.recordWithNext) return;
    const events = this.unrecorded;
    this.unrecorded = [];
    await this.write(events);
  }

  /** Writes the record as it is now, with `events`. */
  write(events: AuditEvent[]): Promise<void> {
    const record = this.entity.record();
    const upTo = record.version;
    const prior = this.lastWritten;
    this.lastWritten = { version: upTo, state: record.state };
    // Once the state has changed in memory it must reach MongoDB, even if the work that caused
    // it is being cancelled; the store's version check keeps a late write from going back.
    const write = this.lastWrite.then(() => CancellationScope.nonCancellable(() => store.recordTransition({ record, events, prior })));
    this.lastWrite = write.catch(() => undefined);
    return write.then(() => {
      this.projectedSeq = Math.max(this.projectedSeq, upTo);
    });
  }

  /** Resolves once transition `seq` (default: the latest) is in MongoDB. */
  async untilProjected(seq = this.entity.data.seq): Promise<void> {
    if (this.projectedSeq < seq) await condition(() => this.projectedSeq >= seq);
  }

  isProjected(seq: number): boolean {
    return this.projectedSeq >= seq;
  }
}
