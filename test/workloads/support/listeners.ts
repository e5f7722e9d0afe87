// The TCP listeners of given processes, read from /proc (Linux): the platform's own sockets, found
// rather than listed by hand, so that a new listener is tried as soon as it exists.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface Listener {
  /** What a client dials: 127.0.0.1 or ::1 for wildcard and loopback binds, else the bound address. */
  host: string;
  port: number;
  pid: number;
}

export function listenersOf(pids: readonly number[]): Listener[] {
  const sockets = new Map<string, { host: string; port: number }>();
  for (const [file, v6] of [['/proc/net/tcp', false], ['/proc/net/tcp6', true]] as const) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] !== '0A' || !fields[1] || !fields[9]) continue; // LISTEN only
      const [hex, port] = fields[1].split(':') as [string, string];
      sockets.set(fields[9], { host: dialable(hex, v6), port: parseInt(port, 16) });
    }
  }
  const found: Listener[] = [];
  for (const pid of pids) {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const inode = /^socket:\[(\d+)\]$/.exec(safeReadlink(`/proc/${pid}/fd/${fd}`))?.[1];
      const socket = inode ? sockets.get(inode) : undefined;
      if (socket && !found.some((l) => l.host === socket.host && l.port === socket.port)) found.push({ ...socket, pid });
    }
  }
  return found;
}

/** /proc's little-endian hex address as one to dial (a wildcard bind is dialled on loopback). */
function dialable(hex: string, v6: boolean): string {
  if (!v6) {
    const bytes = hex.match(/../g)!.map((b) => parseInt(b, 16)).reverse();
    return bytes.every((b) => b === 0) ? '127.0.0.1' : bytes.join('.');
  }
  const words = hex.match(/.{8}/g)!.map((w) => w.match(/../g)!.reverse().join(''));
  const groups = words.join('').match(/.{4}/g)!.map((g) => parseInt(g, 16).toString(16));
  const text = groups.join(':');
  if (/^(0:){7}0$/.test(text)) return '::1';
  if (/^(0:){5}ffff:/.test(text)) return dialableMapped(groups);
  return text.replace(/(^|:)0(:0)+(:|$)/, '::');
}

function dialableMapped(groups: string[]): string {
  const [hi, lo] = [parseInt(groups[6]!, 16), parseInt(groups[7]!, 16)];
  const v4 = [hi >> 8, hi & 255, lo >> 8, lo & 255];
  return v4.every((b) => b === 0) ? '127.0.0.1' : v4.join('.');
}

function safeReadlink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}
