// A service installed under the host's /tmp (a clone there) runs its stdio servers from there:
// the sandbox's own /tmp hides the host's, so the folders the launch names are bound again,
// read-only; a folder of the host's /tmp the launch does not name stays out of sight.
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parseUidRange } from '../../config/config';
import { sandboxed } from '../../activities/workloads/sandbox';
import { makeScratchDir } from '../../activities/workloads/scratch-dir';
import { sandboxAvailable } from './support/sandbox-gate';

const exec = promisify(execFile);
const uidRange = parseUidRange('233100-233109');
const TITLE = 'a server launched from under /tmp runs in the sandbox; what the launch does not name stays hidden';

if (await sandboxAvailable('test/workloads/sandbox-launch-paths.test.ts', TITLE, uidRange)) {
  test(TITLE, async (t) => {
    const install = mkdtempSync(path.join('/tmp', 'launch-install-'));
    const elsewhere = mkdtempSync(path.join('/tmp', 'launch-elsewhere-'));
    const scratchDir = makeScratchDir();
    t.teardown(() => [install, elsewhere, scratchDir].forEach((dir) => rmSync(dir, { recursive: true, force: true })));
    // Both open to every uid, as a clone is: only the sandbox can keep the second out of sight.
    for (const dir of [install, elsewhere]) chmodSync(dir, 0o755);
    writeFileSync(path.join(elsewhere, 'private.txt'), 'not for the server');
    const script = path.join(install, 'server.cjs');
    writeFileSync(script, `const fs = require('node:fs'); console.log(JSON.stringify({ ran: true, elsewhere: fs.existsSync(${JSON.stringify(elsewhere)}), writable: (() => { try { fs.writeFileSync(${JSON.stringify(path.join(install, 'x'))}, 'x'); return true; } catch { return false; } })() }));`);
    const uid = uidRange.first;
    chownSync(scratchDir, uid, uid);
    const launch = sandboxed({ command: process.execPath, args: [script], env: {} }, { uid, gid: uid, scratchDir });
    const { stdout } = await exec(launch.command, launch.args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    t.deepEqual(JSON.parse(stdout), { ran: true, elsewhere: false, writable: false }, 'ran from its folder under /tmp, read-only; the other folder unseen');
  });
}
