// Hands out the uids of CONNECTOR__STDIO_UID_RANGE, one per running local workload, so that no
// two live servers ever share one. Round robin rather than lowest-free: a uid is reused as late
// as the range allows. A uid some process holds already (a server another worker started, a
// leftover) is skipped. Two workers on one machine must be given ranges of their own: each pool
// knows only its own workloads, and the /proc check cannot close the moment between choosing a
// uid and starting the server.
import type { UidRange } from '../../core/config';
import { WorkloadExitedError } from './errors';
import { uidsInUse } from './uid-processes';

/** The server cannot start (→ 502, like one that exits at once); a stop frees a uid again. */
export class UidPoolExhaustedError extends WorkloadExitedError {
  override name = 'UidPoolExhaustedError';
}

export class UidPool {
  private readonly held = new Set<number>();
  private next: number;

  constructor(private readonly range: UidRange, private readonly inUse: () => Set<number> = uidsInUse) {
    this.next = range.first;
  }

  acquire(): number {
    const busy = this.inUse();
    const size = this.range.last - this.range.first + 1;
    for (let tried = 0; tried < size; tried++) {
      const uid = this.next;
      this.next = uid === this.range.last ? this.range.first : uid + 1;
      if (this.held.has(uid) || busy.has(uid)) continue;
      this.held.add(uid);
      return uid;
    }
    throw new UidPoolExhaustedError(
      `every uid of CONNECTOR__STDIO_UID_RANGE (${this.range.first}-${this.range.last}) is taken by a running stdio server`,
    );
  }

  release(uid: number): void {
    this.held.delete(uid);
  }
}
