// What a workload's uid leaves outside its scratch folder. The uid goes to another connector
// later; whatever it left where others can reach would be that connector's (or a setuid copy of a
// shell, planted in a folder another server made world-writable, would let that server act as
// the next holder of the uid). In the sandbox a server writes nowhere but its own /tmp and
// private tmpfs; this scan is for servers run without it and for what a crashed worker left.
// A uid can only write where every user may, at any depth: so the shared temporary folders are
// walked whole, through every folder others may enter, and whatever the uid owns goes.
import { lstat, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The folders every user may write to on a Debian system (and this process's TMPDIR). */
export const SHARED_DIRS = [...new Set([tmpdir(), '/tmp', '/var/tmp', '/dev/shm', '/run/lock', '/dev/mqueue'])];

const OTHERS_EXECUTE = 0o001;

export async function removeFilesOf(uid: number, dirs: readonly string[] = SHARED_DIRS): Promise<void> {
  for (const dir of dirs) await sweep(dir, uid);
}

async function sweep(dir: string, uid: number): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return; // no such folder here, or gone meanwhile
  }
  for (const name of names) {
    const path = join(dir, name);
    const stat = await lstat(path).catch(() => undefined);
    if (!stat) continue;
    // Links are never followed: a link is removed if the uid made it, and what it names is judged where it lies.
    if (stat.uid === uid) await rm(path, { recursive: true, force: true });
    else if (stat.isDirectory() && (stat.mode & OTHERS_EXECUTE) !== 0) await sweep(path, uid);
  }
}
