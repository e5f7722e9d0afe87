// Whether a pid is a live process. A zombie (exited, not yet reaped; on some machines init reaps
// late) holds no port and no file, so it counts as dead.
import { readFileSync } from 'node:fs';

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    // "pid (comm) S ...": comm may hold spaces and parentheses; the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const end = stat.lastIndexOf(')');
    return stat.slice(end + 2, end + 3) === 'Z';
  } catch {
    return false; // no /proc (macOS) or already gone
  }
}
