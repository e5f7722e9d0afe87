// Finding the processes a test started by a marker in their environment (Linux /proc), so that a
// test can see them die or be left behind without the runtime having to tell it anything.
import { readdirSync, readFileSync } from 'node:fs';

/** Live (non-zombie) processes whose environment holds `NAME=value`. */
export function processesWithEnv(name: string, value: string): number[] {
  const needle = `${name}=${value}`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // A zombie runs nothing; the sandbox's bubblewrap carries its server's environment but is not the server.
      if (stat.split(') ')[1]?.startsWith('Z') || stat.includes('(bwrap)')) continue;
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(needle)) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}
