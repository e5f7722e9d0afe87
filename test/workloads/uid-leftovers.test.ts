// The leftover scan on its own, as root: a uid's files go wherever others could reach them (a
// setuid copy deep in another uid's world-writable folder), what others own stays, and links are
// never followed. Where this process cannot chown, the test says so and skips (fails under CI).
import { chmodSync, chownSync, existsSync, lchownSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootTest } from '../helpers/uid-isolation-gate';
import { removeFilesOf } from '../../activities/workloads/uid-leftovers';

const [X, Y] = [231_900, 231_901];
rootTest('uid-leftovers.test.ts', 'the uid\'s files go at any depth others can reach; others\' stay; links are not followed', async (t) => {
  const shared = mkdtempSync(join(tmpdir(), 'leftovers-'));
  chmodSync(shared, 0o1777);
  const mine = (path: string, uid: number, mode: number) => {
    chownSync(path, uid, uid);
    chmodSync(path, mode);
  };
  // X: a world-writable folder, and inside a folder of its own, another one open to all.
  mkdirSync(join(shared, 'd2'));
  mine(join(shared, 'd2'), X, 0o777);
  mkdirSync(join(shared, 'd2', 'deep', 'deeper'), { recursive: true });
  mine(join(shared, 'd2', 'deep'), X, 0o755);
  mine(join(shared, 'd2', 'deep', 'deeper'), X, 0o777);
  // Y: a setuid cat in each, a link to something of root's, a file of its own at the top.
  for (const dir of ['d2', 'd2/deep/deeper']) {
    writeFileSync(join(shared, dir, 'cat'), 'binary');
    mine(join(shared, dir, 'cat'), Y, 0o6755);
  }
  const target = join(shared, 'roots-file');
  writeFileSync(target, 'root\'s');
  symlinkSync(target, join(shared, 'd2', 'link'));
  lchownSync(join(shared, 'd2', 'link'), Y, Y);
  writeFileSync(join(shared, 'top'), 'y');
  mine(join(shared, 'top'), Y, 0o644);
  // A folder closed to others holds nothing the uid could have written.
  mkdirSync(join(shared, 'closed'), { mode: 0o700 });

  await removeFilesOf(Y, [shared]);
  t.false(existsSync(join(shared, 'd2', 'cat')));
  t.false(existsSync(join(shared, 'd2', 'deep', 'deeper', 'cat')), 'deeper than the top, inside another uid\'s folders');
  t.false(existsSync(join(shared, 'top')));
  t.false(existsSync(join(shared, 'd2', 'link')), 'its link goes');
  t.true(existsSync(target), 'what the link named stays');
  t.true(existsSync(join(shared, 'd2', 'deep', 'deeper')), 'X\'s folders stay until X is released');
  await removeFilesOf(X, [shared]);
  t.false(existsSync(join(shared, 'd2')));
  t.true(existsSync(join(shared, 'closed')));
});
