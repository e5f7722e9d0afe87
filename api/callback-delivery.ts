// The authorization callback handed to its connector's workflow. The user reaches the callback
// page once, so an Update call that ends without an answer (its deadline passed under load, its
// connection dropped, or the service lost the Update: platform/workflow-gone.ts) is not the end of
// it: the callback is sent again under the same Update id.
// Temporal attaches the second call to the first if that one arrived; once the workflow has
// continued as new, the workflow answers a callback it already took with the outcome it gave
// (workflows/connector-manager.ts). Either way the code is exchanged once.
import { setTimeout as sleep } from 'node:timers/promises';
import { isOutcomeUnknown, isUnavailable } from './temporal-errors';

export interface Retry {
  attempts: number;
  /** The wait before the second call; it grows by the same step before each later one. */
  delayMs: number;
}

const CALLBACK_RETRY: Retry = { attempts: 3, delayMs: 1_000 };

/** One callback, one Update id, however many calls it takes. */
function callbackUpdateId(stateHash: string): string {
  return `authorization-callback/${stateHash}`;
}

/**
 * `send` makes one Update call under the id it is given; `onLost` hears of each call that ended
 * without an answer and is sent again. A refusal, or the last call's loss, is thrown.
 */
export async function deliverCallback<T>(
  send: (updateId: string) => Promise<T>, stateHash: string, onLost: (err: Error, attempt: number) => void, retry: Retry = CALLBACK_RETRY,
): Promise<T> {
  const updateId = callbackUpdateId(stateHash);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await send(updateId);
    } catch (err) {
      if (!answerLost(err) || attempt >= retry.attempts) throw err;
      onLost(err as Error, attempt);
      await sleep(retry.delayMs * attempt);
    }
  }
}

/** The call ended, but the workflow may have taken the Update all the same. */
function answerLost(err: unknown): boolean {
  return isOutcomeUnknown(err) || isUnavailable(err);
}
