// Hands out the uids of CONNECTOR__STDIO_UID_RANGE, one per running local workload, so that no
// two live servers ever share one. Round robin from a random point rather than lowest-free: a uid
// is reused as late as the range allows, after a restart too. Skipped: a uid some process holds
// already (a leftover, a server this pool does not know) and one another process of the service
// on this machine has claimed (uid-claims.ts).
import { randomInt } from 'node:crypto';
import type { UidRange } from '../../config/config';
import { WorkloadExitedError } from './errors';
import { UidClaims } from './uid-claims';
import { uidsInUse } from './uid-processes';

/** The server cannot start (→ 502, like one that exits at once); a stop frees a uid again. */
export class UidPoolExhaustedError extends WorkloadExitedError {
  override name = 'UidPoolExhaustedError';
}

export interface UidPoolOptions {
  inUse?: () => Set<number>;
  claims?: UidClaims;
}

export class UidPool {
  private readonly held = new Set<number>();
  private readonly inUse: () => Set<number>;
  private readonly claims: UidClaims;
  private next: number;

  constructor(private readonly range: UidRange, options: UidPoolOptions = {}) {
    this.inUse = options.inUse ?? uidsInUse;
    this.claims = options.claims ?? new UidClaims();
    this.next = range.first + randomInt(range.last - range.first + 1);
  }

  acquire(): number {
    const busy = this.inUse();
    const size = this.range.last - this.range.first + 1;
    for (let tried = 0; tried < size; tried++) {
      const uid = this.next;
      this.next = uid === this.range.last ? this.range.first : uid + 1;
      if (this.held.has(uid) || busy.has(uid) || !this.claims.claim(uid)) continue;
      this.held.add(uid);
      return uid;
    }
    throw new UidPoolExhaustedError(
      `every uid of CONNECTOR__STDIO_UID_RANGE (${this.range.first}-${this.range.last}) is taken by a running stdio server`,
    );
  }

  release(uid: number): void {
    this.claims.release(uid);
    this.held.delete(uid);
  }
}
