// How long a call to someone else's server may run inside a workflow task, and whose calls may.
//
// A local activity (the probe of a given token, a renewal its timer wakes) runs while its
// workflow task holds one of the worker's few workflow-task slots (8, service/worker-runtime.ts),
// and no other connector's workflow can use that slot meanwhile. A server of one owner's choosing
// that answers slowly, or never (a tarpit), would otherwise hold every slot for the call's whole
// timeout and stall every owner's connectors. So a call in a task has a short budget: past it the
// call leaves the task (the workflow runs it again as a regular activity, which waits without a
// slot).
//
// An owner has at most two calls in each shard's tasks at once: each shard's worker has slots of
// its own (CONNECTOR__WORKFLOW_SHARDS), and a limit for the whole process also counted calls that
// held other shards' slots (at 10,000 connectors on 4 shards one renewal in eleven was refused so,
// each then costing a second workflow task and an activity). An owner whose call overran, failed
// or was slow has their calls run as regular activities in this worker for a while: briefly the
// first time, twice as long each time they are sent out again soon after, up to a minute. An
// honest owner on a loaded worker is sent out now and then (an answer read late, a database
// wait); sent out for a minute each time, such owners' renewals were a sixth of all refreshes at
// 10,000 connectors (docs/scale.md, "42.6 with the first renewals spread over the renewal
// period"), and their second tasks loaded the worker further. A tarpit is sent out again as soon
// as it is back, so its fourth time out is the whole minute, and from then on it holds slots as
// seldom as it did with a minute every time. Without caller authentication there is one tenant,
// whose servers can only slow themselves: the budget alone.
//
// An owner is sent out for their server's part of a call's time, not the registry's. For a call
// that answered within the budget, the registry's part is the larger of: the time this thread's
// event loop spent running code or was held off the CPU meanwhile (activities/timer-lateness.ts),
// and the time the call waited on the registry's own database (`inOwnStore`: the refresh ledger's
// claim before the server is asked and its record after it answered). A saturated worker reads
// every answer late; counted against the owners, that sent them all out, and each call sent out
// costs a second workflow task, which saturated the worker further (docs/scale.md, "The sandbox's
// stack limit", "42.6 at full size on a slower machine"). An overrun is excused only by time the
// server cannot have had, waits on the database or the CPU, never by this thread's own busy time:
// a tarpit's call holds its slot the whole budget however busy the worker is, and would otherwise
// keep two slots whenever the worker is loaded. Why an owner was sent out names each part.
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../contract/failures';
import { timerLateness, type TimerLatenessMeter } from './timer-lateness';

/** What the workflow passes to an activity it may run in a task: whose call it is. */
export interface InTaskCall {
  /** The connector's owner (null: callers are not authenticated). */
  owner?: string | null;
}

export interface InTaskLimits {
  /** A call still running after this long leaves the task (below the task's 2 s timeout). */
  budgetMs: number;
  /**
   * A call whose server took longer than this (its time less the registry's part meanwhile),
   * though it answered within the budget, sends its owner's next calls out of tasks too; so does
   * an overrun unless more than this of its time was the registry's own waits.
   */
  slowMs: number;
  /** How long an owner's calls stay out of tasks the first time (or the first since a while). */
  firstOutMs: number;
  /**
   * The longest they stay out: an owner sent out again within this long of their last time ending
   * stays out twice as long as that time, up to this.
   */
  maxOutMs: number;
  /** How many of an owner's calls may be in one shard's tasks at once: the others run as activities. */
  perOwner: number;
}

export const IN_TASK_LIMITS: InTaskLimits = { budgetMs: 1_000, slowMs: 500, firstOutMs: 7_500, maxOutMs: 60_000, perOwner: 2 };

/** Milliseconds this thread's event loop has spent running code (not waiting for I/O or timers) so far. */
export type LoopBusyMeter = () => number;

const loopBusyMs: LoopBusyMeter = () => performance.eventLoopUtilization().active;

/**
 * What became of a call offered to a task: `answered` in it, `failed` there, `overran` its budget
 * (run again as an activity), or refused before it started because its owner was `owner_out` or
 * had `owner_busy` calls in tasks (run as an activity at once).
 */
export type InTaskOutcome = 'answered' | 'failed' | 'overran' | 'owner_out' | 'owner_busy';

/** The clocks an admission reads, and who hears what it decides: tests set their own. */
export interface InTaskWatch {
  now?: () => number;
  loopBusy?: LoopBusyMeter;
  lateness?: TimerLatenessMeter;
  /** Told when an owner's calls start to run as activities, and for how long (not each time their time is extended). */
  onSentOut?: (owner: string, why: string, forMs: number) => void;
  /** Told of every call offered to a task (the in_task_calls_total series). */
  onOutcome?: (outcome: InTaskOutcome) => void;
}

/** Beyond this many owners sent out, the ones whose time is up, and whose next time would be the first, are forgotten. */
const PRUNE_AT = 1_024;
const OVERRAN = Symbol('overran');

/** A call in a task: whether it has left its task, and its waits on the registry's own database. */
interface CallInTask {
  left: boolean;
  ownStoreMs: number;
  /** When the wait on the database now under way began (performance.now()). */
  ownStoreSince: number | null;
}

/** The call in a task that this code runs in, if any. */
const currentCall = new AsyncLocalStorage<CallInTask>();

/**
 * Whether the call this code runs in overran its budget and was left to finish on its own: the
 * workflow runs it again as an activity, which is the run that counts (a refresh's metrics).
 */
export function callLeftItsTask(): boolean {
  return currentCall.getStore()?.left === true;
}

/**
 * Runs `work`, a wait on the registry's own database (the refresh ledger), counted as the
 * registry's part of the call it runs in rather than the owner's server's.
 */
export async function inOwnStore<T>(work: () => Promise<T>): Promise<T> {
  const call = currentCall.getStore();
  if (!call || call.ownStoreSince !== null) return work();
  call.ownStoreSince = performance.now();
  try {
    return await work();
  } finally {
    call.ownStoreMs += performance.now() - call.ownStoreSince;
    call.ownStoreSince = null;
  }
}

function ownStoreSoFar(call: CallInTask): number {
  return call.ownStoreMs + (call.ownStoreSince === null ? 0 : performance.now() - call.ownStoreSince);
}

/** An owner sent out: until when, and for how long that time was. */
interface TimeOut {
  until: number;
  forMs: number;
}

export class InTaskAdmission {
  /** Owner → their latest time out of tasks (the current one, or the one a next time doubles). */
  private readonly sentOut = new Map<string, TimeOut>();
  /** The workflow-task slots of a shard (its task queue) → owner → their calls in those slots now. */
  private readonly inTask = new Map<string, Map<string, number>>();

  private readonly now: () => number;
  private readonly loopBusy: LoopBusyMeter;
  private readonly lateness: TimerLatenessMeter;
  private readonly onSentOut: (owner: string, why: string, forMs: number) => void;
  private readonly onOutcome: (outcome: InTaskOutcome) => void;

  constructor(private readonly limits: InTaskLimits = IN_TASK_LIMITS, watch: InTaskWatch = {}) {
    this.now = watch.now ?? Date.now;
    this.loopBusy = watch.loopBusy ?? loopBusyMs;
    this.lateness = watch.lateness ?? timerLateness;
    this.onSentOut = watch.onSentOut ?? (() => undefined);
    this.onOutcome = watch.onOutcome ?? (() => undefined);
  }

  /**
   * Runs `work` in the task if its owner may, within the budget; else throws a retryable failure
   * that sends it out. `slots`: whose workflow-task slots the call holds (its shard's task queue).
   */
  async run<T>(owner: string | null | undefined, work: () => Promise<T>, slots = ''): Promise<T> {
    const call: CallInTask = { left: false, ownStoreMs: 0, ownStoreSince: null };
    if (owner == null) return this.counted(this.withinBudget(call, work));
    if (this.isOut(owner)) throw this.refused('owner_out', 'this owner\'s servers were slow of late: the call runs as an activity');
    const owners = this.inTask.get(slots) ?? new Map<string, number>();
    const running = owners.get(owner) ?? 0;
    if (running >= this.limits.perOwner) throw this.refused('owner_busy', `this owner has ${running} calls in this shard's workflow tasks: the call runs as an activity`);
    owners.set(owner, running + 1);
    this.inTask.set(slots, owners);
    const clock = this.startClock(call);
    try {
      const answer = await this.counted(this.withinBudget(call, work));
      const times = clock();
      const registry = Math.max(times.busy + times.heldOff, times.ownStore);
      if (times.took - registry > this.limits.slowMs) this.sendOut(owner, `a call took ${times.took} ms${registryPart(times)}`);
      return answer;
    } catch (err) {
      const times = clock();
      const overran = ownLeaving.has(err as object);
      // More than the slow limit of waits the server cannot have had: it had less than that itself.
      const excused = overran && Math.max(times.heldOff, times.ownStore) > this.limits.slowMs;
      if (!excused) this.sendOut(owner, `${overran ? (err as Error).message : failed(err)}${registryPart(times)}`);
      throw err;
    } finally {
      this.leave(slots, owner);
    }
  }

  private leave(slots: string, owner: string): void {
    const owners = this.inTask.get(slots);
    const left = (owners?.get(owner) ?? 1) - 1;
    if (left > 0) owners?.set(owner, left);
    else owners?.delete(owner);
    if (owners?.size === 0) this.inTask.delete(slots);
  }

  /** The call's outcome told to `onOutcome`, the call's own answer or failure passed on. */
  private async counted<T>(call: Promise<T>): Promise<T> {
    try {
      const answer = await call;
      this.onOutcome('answered');
      return answer;
    } catch (err) {
      this.onOutcome(ownLeaving.has(err as object) ? 'overran' : 'failed');
      throw err;
    }
  }

  private refused(outcome: InTaskOutcome, message: string): ApplicationFailure {
    this.onOutcome(outcome);
    return leaving(message);
  }

  /** From now: the time a call took, and the parts of it that were the registry's (CallTimes). */
  private startClock(call: CallInTask): () => CallTimes {
    const started = this.now();
    const busyBefore = this.loopBusy();
    const lateBefore = this.lateness();
    return () => {
      const busy = this.loopBusy() - busyBefore;
      // Busy stretches make timers late too: only lateness beyond them is the machine's.
      const heldOff = this.lateness() - lateBefore - busy;
      return {
        took: this.now() - started, busy: Math.round(busy), heldOff: Math.max(0, Math.round(heldOff)),
        ownStore: Math.round(ownStoreSoFar(call)),
      };
    };
  }

  /** Whether this owner's calls run as regular activities now. */
  isOut(owner: string): boolean {
    return (this.sentOut.get(owner)?.until ?? 0) > this.now();
  }

  /**
   * An overrunning call is left to finish on its own rather than cut off: a refresh may already
   * have presented its refresh token, and the refresh ledger hands its answer to the activity
   * that runs next (activities/present-once.ts).
   */
  private async withinBudget<T>(call: CallInTask, work: () => Promise<T>): Promise<T> {
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
    const last = this.sentOut.get(owner);
    const forMs = this.timeOut(last, now);
    if (!last || last.until <= now) this.onSentOut(owner, why, forMs);
    if (this.sentOut.size >= PRUNE_AT) {
      for (const [known, out] of this.sentOut) if (out.until + this.limits.maxOutMs <= now) this.sentOut.delete(known);
    }
    this.sentOut.set(owner, { until: Math.max(last?.until ?? 0, now + forMs), forMs });
  }

  /**
   * How long an owner goes out now. Still out: as long again from now, not longer (the calls of
   * one burst fail together). Back for less than the longest time: twice the last time. Else the first.
   */
  private timeOut(last: TimeOut | undefined, now: number): number {
    if (!last) return this.limits.firstOutMs;
    if (last.until > now) return last.forMs;
    if (now - last.until < this.limits.maxOutMs) return Math.min(this.limits.maxOutMs, last.forMs * 2);
    return this.limits.firstOutMs;
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

interface CallTimes {
  took: number;
  /** This thread's event loop running code. */
  busy: number;
  /** This thread ready to run and kept waiting by the machine. */
  heldOff: number;
  /** Waiting on the registry's own database (may overlap the time held off). */
  ownStore: number;
}

function registryPart({ busy, heldOff, ownStore }: CallTimes): string {
  const parts = [
    ...(busy > 0 ? [`${busy} ms of it the worker's own`] : []),
    ...(heldOff > 0 ? [`${heldOff} ms of it the worker held off the CPU`] : []),
    ...(ownStore > 0 ? [`${ownStore} ms of it waiting on the registry's own database`] : []),
  ];
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** Why, without the failure's message: it may quote a URL, credentials included. */
function failed(err: unknown): string {
  return `a call failed (${err instanceof ApplicationFailure ? err.type : (err as Error).name})`;
}
