// Finding test-started processes by a marker in their environment (/proc/<pid>/environ), so a
// test can kill a managed stdio server from outside or check that none is left. The local
// sandbox's bubblewrap processes around a server carry its environment too: only the server counts.
import fs from 'node:fs';

export function pidsWithEnv(entry: string): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const environ = fs.readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (environ.includes(entry) && state !== 'Z' && !stat.includes('(bwrap)')) pids.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}
