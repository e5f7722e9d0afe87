// The embedded stack prefers the servers' usual ports (USUAL_PORTS) so their addresses
// are familiar, but never fails because something else holds one.
import { isPortConflict } from '../service/free-port';

/**
 * Starts a server on its preferred ports, and once more on free ports if another process took
 * one between the check and the bind.
 */
export async function onFreePorts<T>(start: (fallback: boolean) => Promise<T>): Promise<T> {
  try {
    return await start(false);
  } catch (err) {
    if (!isPortConflict(err)) throw err;
    return start(true);
  }
}
