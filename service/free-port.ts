// Port 0 in our options means "any free port". The servers need concrete numbers on their
// command lines, so ask the OS for them and release them just before the children bind them.
import { createServer, type Server } from 'node:net';

/** The ports the embedded stack's servers prefer, so their addresses are the familiar ones. */
export const USUAL_PORTS = { temporal: 7233, temporalUi: 8233, mongodb: 27017 } as const;
const USUAL_PORT_NUMBERS = new Set<number>(Object.values(USUAL_PORTS));

export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  // All listeners stay open until every port is known, so the numbers are distinct.
  const servers = await Promise.all(Array.from({ length: count }, () => listenOn(0, host)));
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  const [port] = await freePorts(1, host);
  return port as number;
}

/**
 * A free port below the kernel's ephemeral range (32768 and up on Linux), for a listener whose
 * port is chosen here but bound later by code that cannot take a socket (the Temporal SDK's
 * metrics exporter), or only after other servers have started (a test's stack, which binds PORT
 * once its Temporal and FerretDB are up). The ports `freePort` hands out, released before their
 * owner binds them, and every outgoing connection come from the ephemeral range, so none of them
 * takes such a port in that window. The servers' usual ports are never handed out: a stack
 * started next would take its FerretDB's 27017 first and then fail to bind PORT there (CI saw it).
 */
export async function freePortBelowEphemeral(host = '127.0.0.1', pick = randomPortBelowEphemeral): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = pick();
    if (USUAL_PORT_NUMBERS.has(port)) continue;
    const server = await listenOn(port, host).catch(() => null);
    if (!server) continue; // taken: try another
    await new Promise((resolve) => server.close(resolve));
    return port;
  }
  return freePort(host);
}

const randomPortBelowEphemeral = () => 20_000 + Math.floor(Math.random() * 12_000);

export async function portOrFree(port: number | undefined, host = '127.0.0.1'): Promise<number> {
  return port ? port : freePort(host);
}

const BIND_CONFLICT = /address already in use|EADDRINUSE/i;

export function isPortConflict(error: unknown): boolean {
  return error instanceof Error && BIND_CONFLICT.test(error.message);
}

/**
 * Runs `start` again (up to `attempts` times) while it fails on a port another process took.
 * A free port is only free until someone binds it: between our check and the child's bind, and
 * for the ports the Temporal CLI picks for its own internal services, a server starting at the
 * same moment can take it.
 */
export async function retryOnPortConflict<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= attempts || !isPortConflict(error)) throw error;
    }
  }
}

/** The preferred port (one of USUAL_PORTS) when nothing listens on it, else any free port. */
export async function preferredOrFree(preferred: number, host = '127.0.0.1'): Promise<number> {
  try {
    const server = await listenOn(preferred, host);
    await new Promise((resolve) => server.close(resolve));
    return preferred;
  } catch {
    return freePort(host);
  }
}

function listenOn(port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
