// The embedded stack prefers the servers' usual ports (7233, 8233, 27017) so their addresses
// are familiar, but never fails because something else holds one.
import { createServer } from 'node:net';
import { freePort } from './servers/free-port';

export async function preferredOrFree(port: number, host = '127.0.0.1'): Promise<number> {
  if (port === 0) return freePort(host);
  const free = await new Promise<boolean>((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
  return free ? port : freePort(host);
}

/**
 * Starts a server on its preferred ports, and once more on free ports if another process took
 * one between the check and the bind.
 */
export async function onFreePorts<T>(start: (fallback: boolean) => Promise<T>): Promise<T> {
  try {
    return await start(false);
  } catch (err) {
    if (!/address already in use|EADDRINUSE/i.test((err as Error).message)) throw err;
    return start(true);
  }
}
