// A server's own working directory (and HOME): never the service's working directory or
// DATA_DIR, where the key lives. Made by this process (mkdtemp: mode 0700) and, for a server
// that runs as its own uid, handed to that uid: no other workload can enter it.
import { chownSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How every scratch folder's name begins (in the host's tmpdir). */
export const SCRATCH_PREFIX = 'connector-workload-';

export function makeScratchDir(owner?: { uid: number; gid: number }): string {
  const dir = mkdtempSync(join(tmpdir(), SCRATCH_PREFIX));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  return dir;
}

/** Removes it whatever its owner left inside (links are removed, never followed). */
export async function removeScratchDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
