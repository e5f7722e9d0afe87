// Whether a file can be used by a uid that is neither its owner nor in its group, as a
// workload's uid never is: only the "others" permission bits count, on the file and on every
// directory above it. A service installed under /root (mode 0700), or a node from a version
// manager in a home directory, is out of a workload's reach although the service runs it fine;
// this names the directory that closes the way, so the refusal can say what to change.
import { realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const OTHERS_EXECUTE = 0o001;
const OTHERS_READ = 0o004;

/** The first path that closes `file` to others (itself or a directory above it), or null if none does. */
export function closedToOthers(file: string, need: 'execute' | 'read'): string | null {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return null; // missing: the server's own start says so, in its words
  }
  // The path as given is walked too: a symlink's directories must be passable as well.
  for (const path of new Set([resolve(file), real])) {
    for (let dir = dirname(path); ; dir = dirname(dir)) {
      if ((statSync(dir).mode & OTHERS_EXECUTE) === 0) return dir;
      if (dir === dirname(dir)) break;
    }
  }
  const stat = statSync(real);
  const bits = need === 'execute' ? OTHERS_EXECUTE : stat.isDirectory() ? OTHERS_READ | OTHERS_EXECUTE : OTHERS_READ;
  return (stat.mode & bits) === bits ? null : real;
}

/**
 * Why a server run as its own uid could not run `program` with `args`: its program (found on
 * `searchPath` when it names no directory) or a file an argument names by absolute path is
 * closed to others. null when nothing is.
 */
export function commandClosedToOthers(program: string, args: string[], searchPath: string, cwd: string): string | null {
  const found = program.includes('/')
    ? resolve(cwd, program)
    : searchPath.split(':').filter(Boolean).map((dir) => resolve(dir, program)).find(exists);
  const checks: Array<[string, 'execute' | 'read']> = [
    ...(found ? [[found, 'execute'] as [string, 'execute']] : []),
    ...args.filter((arg) => arg.startsWith('/') && exists(arg)).map((arg): [string, 'read'] => [arg, 'read']),
  ];
  for (const [file, need] of checks) {
    const closed = closedToOthers(file, need);
    if (closed) {
      return `${file} is out of reach of the stdio servers' own uids: ${closed} is closed to other users ` +
        `(mode ${(statSync(closed).mode & 0o777).toString(8)}); install it where every user may ${need === 'execute' ? 'run' : 'read'} it`;
    }
  }
  return null;
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
