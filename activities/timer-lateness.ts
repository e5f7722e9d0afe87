// How long this thread's timers ran late: a tick every 20 ms, and the time each came later than
// due. Less the thread's own busy time (the event loop's utilization), what is left is time the
// thread was ready to run and the machine did not let it: a stall of the whole machine, which a
// call to a server lived through too. In-task admission names it when a call overran, so that a
// run at scale tells an owner's slow server from a machine that stalled (docs/scale.md).
import { performance } from 'node:perf_hooks';

/** Milliseconds this thread's timers have run late so far (since the first reading). */
export type TimerLatenessMeter = () => number;

const TICK_MS = 20;
/** Lateness up to this much per tick is the timer's ordinary jitter, not a stall. */
const JITTER_MS = 5;

let sampler: { late: number; due: number } | undefined;

/**
 * The shared meter of this thread. Its tick starts at the first reading and never keeps the
 * process alive; a tick not yet run counts for the time it is already overdue.
 */
export const timerLateness: TimerLatenessMeter = () => {
  const now = performance.now();
  if (!sampler) {
    const state = { late: 0, due: now + TICK_MS };
    setInterval(() => {
      const at = performance.now();
      state.late += overdue(at, state.due);
      state.due = at + TICK_MS;
    }, TICK_MS).unref();
    sampler = state;
  }
  return sampler.late + overdue(now, sampler.due);
};

function overdue(at: number, due: number): number {
  const late = at - due;
  return late > JITTER_MS ? late : 0;
}
