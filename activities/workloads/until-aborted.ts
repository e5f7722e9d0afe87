// Waiting that an AbortSignal can cut short: a cancelled activity stops waiting at once, while
// the work it waited on (a server starting, a process running) is left to its owner.

/** `work`, or a rejection with the signal's reason as soon as it is aborted. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Sleeps `ms`; an abort ends the sleep with a rejection carrying the signal's reason. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  const slept = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => clearTimeout(timer), { once: true });
  });
  return signal ? untilAborted(slept, signal) : slept;
}
