// A Node binary that other users may run: the toolchain keeps Node 24 in the user's cache (under a
// home folder most systems close to others, mode 700), and the local stdio runtime runs servers as
// uids of their own, which refuses a program they cannot reach (activities/workloads/others-can-reach.ts).
// The binary is linked (or copied, across file systems) into `dir`, whose folders are opened to
// every user for reading and traversal only; it is replaced when the source changes.
import { chmod, copyFile, link, mkdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

export async function reachableNode(path: string, dir: string): Promise<string> {
  // The npm package's bin is a relative symbolic link: a hard link to it would be a dangling one.
  const source = await realpath(path);
  const target = join(dir, 'node24', 'node');
  const [from, to] = await Promise.all([stat(source), stat(target).catch(() => null)]);
  if (to && to.size === from.size && to.mtimeMs >= from.mtimeMs) return target;
  await mkdir(join(dir, 'node24'), { recursive: true, mode: 0o755 });
  const partial = `${target}.${process.pid}`;
  await rm(partial, { force: true });
  await link(source, partial).catch(() => copyFile(source, partial));
  await chmod(partial, 0o755);
  await rename(partial, target);
  return target;
}
