// A stop made of steps, each timed (platform/step-clock.ts) and named in one line at its end.
import type { Logger } from './logger';
import { stepClock } from './step-clock';

export interface StopStep {
  name: string;
  stop: () => Promise<void> | void;
}

/** Runs the steps in order; a failed step is logged and the next one still runs. */
export async function runStopSteps(logger: Logger, message: string, steps: readonly StopStep[]): Promise<void> {
  const clock = stepClock();
  for (const { name, stop } of steps) {
    try {
      await stop();
    } catch (err) {
      logger.error({ err, step: name }, 'stop failed');
    }
    clock.lap(name);
  }
  logger.info(clock.summary(), message);
}
