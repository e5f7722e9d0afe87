// The tests that show owners' stdio servers run as uids of their own need root (or its
// capabilities) and a mapped uid range. Where that is missing they are skipped, loudly; under CI,
// or as root, where they are expected to run, the missing part fails the file instead, so that
// the isolation is never reported green without having been tried.
import test, { type ExecutionContext } from 'ava';
import type { UidRange } from '../../config/config';
import { checkUidSwitching } from '../../activities/workloads/uid-switching';

/** True when the file's tests can run; otherwise one test stands for them, skipped or failing. */
export function uidSwitchingAvailable(file: string, title: string, range: UidRange): boolean {
  const whyNot = checkUidSwitching(range);
  if (whyNot === null) return true;
  standInFor(file, title, `cannot switch uids here: ${whyNot}`);
  return false;
}

/**
 * One test standing for tests that cannot run here: failing under CI or as root, where they are
 * expected to run, else skipped with the reason on standard error.
 */
export function standInFor(file: string, title: string, whyNot: string): void {
  if (process.env.CI || process.getuid?.() === 0) {
    test(title, (t) => t.fail(whyNot));
  } else {
    process.stderr.write(`${file}: SKIPPED, ${whyNot}\n`);
    test.skip(`${title} (skipped: ${whyNot})`, () => undefined);
  }
}

/** `test` for a test that needs root; elsewhere its stand-in (standInFor). */
export function rootTest(file: string, title: string, impl: (t: ExecutionContext) => void | Promise<void>): void {
  if (process.getuid?.() === 0) test(title, impl);
  else standInFor(file, title, 'needs root (chown, network namespaces)');
}
