// What a workload's uid leaves outside its scratch folder: files in the directories every user
// may write to. The uid goes to another connector later; whatever it left there would be that
// connector's to read. Only the top level is looked at: anything deeper was made inside a
// directory the uid created (removed with it) or inside another user's (not the uid's to fill).
import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SHARED_DIRS = [...new Set([tmpdir(), '/tmp', '/var/tmp', '/dev/shm'])];

export function removeFilesOf(uid: number, dirs: string[] = SHARED_DIRS): void {
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue; // no such directory here
    }
    for (const name of names) {
      const path = join(dir, name);
      try {
        if (lstatSync(path).uid === uid) rmSync(path, { recursive: true, force: true });
      } catch {
        // gone meanwhile
      }
    }
  }
}
