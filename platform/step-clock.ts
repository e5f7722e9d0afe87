// Times a start or a stop made of steps, for the one line logged at its end: a restart's length
// decides how late the refreshes due meanwhile are (docs/scale.md), and the step that takes it is
// what an operator needs to see.

export interface StepClock {
  /** Ends the step under way, named `name`, and starts the next. */
  lap(name: string): void;
  /** Each step's milliseconds, in order, and the total. */
  summary(): { tookMs: Record<string, number>; totalMs: number };
}

export function stepClock(): StepClock {
  const began = performance.now();
  let last = began;
  const tookMs: Record<string, number> = {};
  return {
    lap(name) {
      const now = performance.now();
      tookMs[name] = Math.round(now - last);
      last = now;
    },
    summary: () => ({ tookMs: { ...tookMs }, totalMs: Math.round(last - began) }),
  };
}

/** The messages of the lines that carry a clock's summary: logged by the stack and its worker, read back by bench:scale. */
export const TIMED_LINES = {
  stackStopped: 'stopped',
  workerStopped: 'the worker stopped',
  stackStarted: 'started',
  workerStarted: 'the worker started',
} as const;
