// Tests that need a container engine. npm test installs podman where it can (the toolchain's
// --containers), so under CI or as root a missing engine fails the test, saying why, rather than
// reporting it green untried; elsewhere (a developer's machine without one) it passes, saying
// SKIPPED and why, as the uid tests' stand-ins do (uid-isolation-gate.ts).
import type { ExecutionContext } from 'ava';

export function withoutEngine(t: ExecutionContext, reason: string): void {
  if (process.env.CI || process.getuid?.() === 0) {
    t.fail(`no usable container engine where npm test provides one: ${reason}`);
    return;
  }
  t.log(`SKIPPED: ${reason}`);
  t.pass('no container engine on this machine');
}
