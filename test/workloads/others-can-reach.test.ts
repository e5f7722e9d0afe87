// Whether a server run as a uid of its own can use its program and the files its arguments name:
// only the "others" bits count, on the file and every directory above it (a service under /root,
// mode 0700, runs fine as root, yet no workload can start from there).
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { closedToOthers, commandClosedToOthers } from '../../activities/workloads/others-can-reach';

function tree() {
  const root = mkdtempSync(join(tmpdir(), 'reach-'));
  chmodSync(root, 0o755);
  const open = join(root, 'open');
  const closed = join(root, 'closed');
  mkdirSync(open, { mode: 0o755 });
  mkdirSync(closed, { mode: 0o700 });
  chmodSync(closed, 0o700);
  for (const dir of [open, closed]) {
    writeFileSync(join(dir, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    chmodSync(join(dir, 'tool'), 0o755);
    writeFileSync(join(dir, 'script.mjs'), '', { mode: 0o644 });
    chmodSync(join(dir, 'script.mjs'), 0o644);
  }
  writeFileSync(join(open, 'private.mjs'), '', { mode: 0o600 });
  chmodSync(join(open, 'private.mjs'), 0o600);
  symlinkSync(join(closed, 'tool'), join(open, 'link-to-closed'));
  return { open, closed };
}

test('a file is reachable when it and every directory above it are open to others', (t) => {
  const { open, closed } = tree();
  t.is(closedToOthers(join(open, 'tool'), 'execute'), null);
  t.is(closedToOthers(join(open, 'script.mjs'), 'read'), null);
  t.is(closedToOthers(join(closed, 'tool'), 'execute'), closed, 'the directory that closes the way is named');
  t.is(closedToOthers(join(open, 'private.mjs'), 'read'), join(open, 'private.mjs'), 'a file of the owner\'s alone');
  t.is(closedToOthers(join(open, 'script.mjs'), 'execute'), join(open, 'script.mjs'), 'readable is not executable');
  t.is(closedToOthers(join(open, 'link-to-closed'), 'execute'), closed, 'a link is followed to where it leads');
  t.is(closedToOthers(join(open, 'missing'), 'read'), null, 'a missing file is for the server\'s start to report');
});

test('a command: its program (found on the path when it names no directory) and the absolute paths among its arguments', (t) => {
  const { open, closed } = tree();
  t.is(commandClosedToOthers('tool', [join(open, 'script.mjs'), '--flag', 'relative.mjs'], `${open}:/usr/bin`, '/'), null);
  t.is(
    commandClosedToOthers('tool', [], `${closed}:${open}`, '/'),
    `${join(closed, 'tool')} is out of reach of the stdio servers' own uids: ${closed} is closed to other users (mode 700); install it where every user may run it`,
    'the first match on the path is the one that would run',
  );
  t.regex(commandClosedToOthers(join(open, 'tool'), [join(closed, 'script.mjs')], '', '/') ?? '', /script\.mjs is out of reach .* may read it$/);
  t.is(commandClosedToOthers('not-anywhere', ['/no/such/file'], open, '/'), null, 'what does not exist is left to the start to report');
});
