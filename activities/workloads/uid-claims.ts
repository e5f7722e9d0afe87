// Claims on uids shared by every process of the service on this machine: a file per uid, made
// with O_EXCL, holding the claiming process's id. Two workers (or a worker and its successor
// still stopping) would otherwise each pick the same free uid in the moment before either server
// starts, and stopping one would kill the other's server. A claim whose process is gone (a
// worker that crashed) is taken over. The directory is this user's alone: a claim another user
// could make or remove would let them steer which uid a server gets.
import { closeSync, lstatSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const DEFAULT_CLAIMS_DIR = join(tmpdir(), 'connector-registry-uids');

export class UidClaims {
  private checked = false;

  constructor(private readonly dir: string = DEFAULT_CLAIMS_DIR) {}

  /** True when this process now holds `uid`; false when a live process does. */
  claim(uid: number): boolean {
    this.ensureDir();
    const file = join(this.dir, String(uid));
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(file, 'wx', 0o600);
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = readHolder(file);
      if (holder === undefined || isAlive(holder)) return false;
      // Taken over only if it still names the dead holder (another process may have just done so).
      if (readHolder(file) === holder) unlinkQuietly(file);
    }
    return false;
  }

  release(uid: number): void {
    const file = join(this.dir, String(uid));
    if (readHolder(file) === process.pid) unlinkQuietly(file);
  }

  private ensureDir(): void {
    if (this.checked) return;
    try {
      mkdirSync(this.dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const stat = lstatSync(this.dir);
    if (!stat.isDirectory() || stat.uid !== process.geteuid?.() || (stat.mode & 0o022) !== 0) {
      throw new Error(`${this.dir} must be a directory of this user's that no one else may write to`);
    }
    this.checked = true;
  }
}

function readHolder(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}
