import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from '../../../stack/toolchain/process-alive';

export { isAlive as isRunning };

/** Resolves true once the process is gone, false if it is still running after `timeoutMs`. */
export async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await sleep(50);
  }
  return !isAlive(pid);
}
