// Whether this process can run a child as another uid, asked of the kernel rather than assumed
// from "am I root": a root without capabilities (a container that dropped them) cannot, and a
// root in a user namespace can only switch to the ids its uid_map and gid_map map.
import { readFileSync } from 'node:fs';
import type { UidRange } from '../../config/config';

/**
 * The capabilities the local runtime uses on a server of another uid: SETUID and SETGID to start
 * it, CHOWN to hand it its scratch folder, DAC_OVERRIDE to remove that folder (and what the
 * server left in it) afterwards, KILL to stop it. Root holds them all unless they were dropped.
 */
const NEEDED = { CHOWN: 0, DAC_OVERRIDE: 1, KILL: 5, SETGID: 6, SETUID: 7 } as const;

/** null when it can; else why not, as a sentence for the operator. */
export type UidSwitchCheck = (range: UidRange) => string | null;

export const checkUidSwitching: UidSwitchCheck = (range) => {
  let status: string;
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    // The runtime finds and ends a server's processes through /proc as well.
    return 'isolating servers by uid needs Linux (/proc)';
  }
  const effective = BigInt(`0x${/^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1] ?? '0'}`);
  const missing = Object.entries(NEEDED).filter(([, bit]) => (effective & (1n << BigInt(bit))) === 0n).map(([name]) => `CAP_${name}`);
  if (missing.length > 0) return `the service lacks ${missing.join(', ')} (run it as root, or grant them)`;
  for (const map of ['uid_map', 'gid_map'] as const) {
    if (!mapCovers(readFileSync(`/proc/self/${map}`, 'utf8'), range)) {
      return `ids ${range.first}-${range.last} are not mapped in this user namespace (/proc/self/${map})`;
    }
  }
  return null;
};

/** Each line of a map: first id inside, first id outside, count. */
function mapCovers(map: string, range: UidRange): boolean {
  return map.split('\n').some((line) => {
    const [inside, , count] = line.trim().split(/\s+/).map(Number);
    return inside !== undefined && count !== undefined && inside <= range.first && range.last < inside + count;
  });
}
