// Whether the TCP listener on a port is a given process's own socket. A server that lost the
// race for its port exits with "address already in use", but a probe sent before that can be
// answered by the process that won: the stack would then use another stack's database. So a
// child counts as ready only when the listener the probe reached is one of its own sockets.
// Linux answers through /proc; elsewhere the answer is "cannot tell" and the probe is trusted.
import { readFile, readdir, readlink } from 'node:fs/promises';

const LISTEN = '0A';

/** True or false where /proc tells; null where it cannot be told. */
export async function listensOn(pid: number, port: number): Promise<boolean | null> {
  const listening = await listeningInodes(port);
  if (listening === null) return null;
  // With /proc there, an unreadable fd folder means the child has just exited (it lost the
  // race for the port): it listens nowhere. Seen under load: the probe was answered by the
  // winner in the moment the loser exited, and "cannot tell" made it ready.
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => null);
  if (fds === null) return false;
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode && listening.has(inode)) return true;
  }
  return false;
}

/** Inodes of the sockets listening on `port` (IPv4 and IPv6), or null without /proc. */
async function listeningInodes(port: number): Promise<Set<string> | null> {
  const tables = await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map((file) => readFile(file, 'utf8').catch(() => null)));
  if (tables.every((table) => table === null)) return null;
  const inodes = new Set<string>();
  for (const line of tables.flatMap((table) => (table ?? '').split('\n').slice(1))) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
    const fields = line.trim().split(/\s+/);
    const local = fields[1]?.split(':')[1];
    if (fields[3] === LISTEN && local && parseInt(local, 16) === port && fields[9]) inodes.add(fields[9]);
  }
  return inodes;
}
