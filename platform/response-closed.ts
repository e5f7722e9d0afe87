// A response's 'close' is emitted once. Code that starts watching for it after an await (the caller
// authenticated, the route found, the body read) may start after its client has left, and would
// then wait for good: a place held, an upstream stream kept open, a session counted.
import type { ServerResponse } from 'node:http';

/** Runs `fn` once `res` has closed: on the next tick when it closed before it was asked. */
export function onceClosed(res: ServerResponse, fn: () => void): void {
  if (res.closed) process.nextTick(fn);
  else res.once('close', fn);
}
