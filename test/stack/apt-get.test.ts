// The toolchain's apt-get waits while another process holds the package database, as a fresh
// machine's apt-daily or a second toolchain run does, instead of failing the first start. The holder
// here is real: `dpkg --set-selections` locks the database until its input ends (it is given
// none, so nothing changes), and `apt-get check` needs the lock and no network.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { aptGet } from '../../stack/toolchain/apt-get';
import { standInFor } from '../helpers/uid-isolation-gate';

const FILE = 'test/stack/apt-get.test.ts';
const canLock = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get') && existsSync('/usr/bin/dpkg');

const lines: { msg: string }[] = [];
const log = createLogger('apt-get-test', 'info', { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) });

/** Holds dpkg's locks until `release`; resolves once apt-get is refused for them. */
async function holdPackageDatabase() {
  const holder = spawn('dpkg', ['--set-selections'], { stdio: ['pipe', 'ignore', 'ignore'] });
  const exited = new Promise((resolve) => holder.once('exit', resolve));
  for (;;) {
    if (holder.exitCode !== null) throw new Error(`dpkg --set-selections exited with ${holder.exitCode} before holding the lock`);
    const refused = await aptGet(['check', '-qq'], { log, lockWaitMs: 0 }).then(() => false, (err: { stderr?: string }) => /lock/.test(err.stderr ?? ''));
    if (refused) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { release: async () => { holder.stdin.end(); await exited; } };
}

if (canLock) {
  test.serial('apt-get waits for a lock another process holds, saying so, and runs once it is let go', async (t) => {
    const holder = await holdPackageDatabase();
    t.teardown(() => holder.release());
    let settled = false;
    const checking = aptGet(['check', '-qq'], { log, retryMs: 100 }).finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    t.false(settled, 'still waiting while the lock is held');
    t.true(lines.some((line) => /waiting for another process to let go of the package database/.test(line.msg)));
    await holder.release();
    await t.notThrowsAsync(checking);
  });

  test.serial('apt-get gives up after its wait with the lock\'s own error', async (t) => {
    const holder = await holdPackageDatabase();
    t.teardown(() => holder.release());
    const error = await t.throwsAsync(aptGet(['check', '-qq'], { log, lockWaitMs: 500, retryMs: 100 }));
    t.regex((error as Error & { stderr: string }).stderr, /Could not get lock|Unable to acquire the dpkg frontend lock/);
  });
} else {
  standInFor(FILE, 'apt-get waits for the package database\'s lock', 'needs root and Debian\'s apt-get and dpkg');
}
