// How long a call to someone else's server may run inside a workflow task, and whose calls may.
//
// A local activity (the probe of a given token, a renewal its timer wakes) runs while its
// workflow task holds one of the worker's few workflow-task slots (8, service/worker-runtime.ts),
// and no other connector's workflow can use that slot meanwhile. A server of one owner's choosing
// that answers slowly, or never (a tarpit), would otherwise hold every slot for the call's whole
// timeout and stall every owner's connectors. So a call in a task has a short budget: past it the
// call leaves the task (the workflow runs it again as a regular activity, which waits without a
// slot). An owner has at most two calls in tasks at once, and one whose call overran, failed or
// was slow has their calls run as regular activities in this worker for a while. Without caller
// authentication there is one tenant, whose servers can only slow themselves: the budget alone.
import { AsyncLocalStorage } from 'node:async_hooks';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../contract/failures';

/** What the workflow passes to an activity it may run in a task: whose call it is. */
export interface InTaskCall {
  /** The connector's owner (null: callers are not authenticated). */
  owner?: string | null;
}

export interface InTaskLimits {
  /** A call still running after this long leaves the task (below the task's 2 s timeout). */
  budgetMs: number;
  /** A call that took longer than this, though it finished, sends its owner's next calls out of tasks too. */
  slowMs: number;
  /** How long an owner's calls stay out of tasks. */
  outMs: number;
  /** How many of an owner's calls may be in tasks at once: the others run as activities. */
  perOwner: number;
}

export const IN_TASK_LIMITS: InTaskLimits = { budgetMs: 1_000, slowMs: 500, outMs: 60_000, perOwner: 2 };

/** Beyond this many owners sent out, the ones whose time is up are forgotten. */
const PRUNE_AT = 1_024;
const OVERRAN = Symbol('overran');

/** The call in a task that this code runs in, if any: whether it has left its task. */
const currentCall = new AsyncLocalStorage<{ left: boolean }>();

/**
 * Whether the call this code runs in overran its budget and was left to finish on its own: the
 * workflow runs it again as an activity, which is the run that counts (a refresh's metrics).
 */
export function callLeftItsTask(): boolean {
  return currentCall.getStore()?.left === true;
}

export class InTaskAdmission {
  /** Owner → until when their calls run as regular activities. */
  private readonly sentOut = new Map<string, number>();
  /** Owner → their calls in tasks now. */
  private readonly inTask = new Map<string, number>();

  constructor(
    private readonly limits: InTaskLimits = IN_TASK_LIMITS,
    private readonly now: () => number = Date.now,
    /** Told when an owner's calls start to run as activities (not each time their time is extended). */
    private readonly onSentOut: (owner: string, why: string) => void = () => undefined,
  ) {}

  /** Runs `work` in the task if its owner may, within the budget; else throws a retryable failure that sends it out. */
  async run<T>(owner: string | null | undefined, work: () => Promise<T>): Promise<T> {
    if (owner == null) return this.withinBudget(work);
    if (this.isOut(owner)) throw leaving('this owner\'s servers were slow of late: the call runs as an activity');
    const running = this.inTask.get(owner) ?? 0;
    if (running >= this.limits.perOwner) throw leaving(`this owner has ${running} calls in workflow tasks: the call runs as an activity`);
    this.inTask.set(owner, running + 1);
    const started = this.now();
    try {
      const answer = await this.withinBudget(work);
      const took = this.now() - started;
      if (took > this.limits.slowMs) this.sendOut(owner, `a call took ${took} ms`);
      return answer;
    } catch (err) {
      this.sendOut(owner, ownLeaving.has(err as object) ? (err as Error).message : failed(err));
      throw err;
    } finally {
      const left = (this.inTask.get(owner) ?? 1) - 1;
      if (left > 0) this.inTask.set(owner, left);
      else this.inTask.delete(owner);
    }
  }

  /** Whether this owner's calls run as regular activities now. */
  isOut(owner: string): boolean {
    return (this.sentOut.get(owner) ?? 0) > this.now();
  }

  /**
   * An overrunning call is left to finish on its own rather than cut off: a refresh may already
   * have presented its refresh token, and the refresh ledger hands its answer to the activity
   * that runs next (activities/refresh-once.ts).
   */
  private async withinBudget<T>(work: () => Promise<T>): Promise<T> {
    const call = { left: false };
    const running = currentCall.run(call, work);
    let timer: NodeJS.Timeout | undefined;
    const overran = new Promise<typeof OVERRAN>((resolve) => {
      timer = setTimeout(() => resolve(OVERRAN), this.limits.budgetMs);
    });
    try {
      const first = await Promise.race([running, overran]);
      if (first !== OVERRAN) return first;
      call.left = true;
      running.catch(() => undefined);
      throw leaving(`the server did not answer within ${this.limits.budgetMs} ms: the call runs as an activity`);
    } finally {
      clearTimeout(timer);
    }
  }

  private sendOut(owner: string, why: string): void {
    const now = this.now();
    if (!this.isOut(owner)) this.onSentOut(owner, why);
    if (this.sentOut.size >= PRUNE_AT) {
      for (const [known, until] of this.sentOut) if (until <= now) this.sentOut.delete(known);
    }
    this.sentOut.set(owner, now + this.limits.outMs);
  }
}

/** The failures `leaving` made: their messages are this module's own. */
const ownLeaving = new WeakSet<object>();

/** Retryable, so the workflow runs the call again as a regular activity (workflows/activity-proxies.ts, `inTaskFirst`). */
function leaving(message: string): ApplicationFailure {
  const failure = ApplicationFailure.create({ type: FAILURE.transient, message, nonRetryable: false });
  ownLeaving.add(failure);
  return failure;
}

/** Why, without the failure's message: it may quote a URL, credentials included. */
function failed(err: unknown): string {
  return `a call failed (${err instanceof ApplicationFailure ? err.type : (err as Error).name})`;
}
