// Who can reach the embedded Temporal and FerretDB, said once at start. Neither takes credentials:
// whatever reaches Temporal's frontend can Update or Terminate any connector's workflow, whatever
// reaches FerretDB reads and writes every record. Both listen on loopback only, which this
// machine's own processes and users reach, and which stdio servers do not wherever they run in
// network namespaces of their own (the local sandbox, containers).
import type { Logger } from '../../platform/logger';

export interface EmbeddedServers {
  /** host:port, when this stack started it (null: an external one, not this line's business). */
  temporal: string | null;
  /** Its mongodb:// URI, when this stack started it. */
  mongodb: string | null;
}

export function reachLine(servers: EmbeddedServers, stdioSharesHostNetwork: boolean): string | null {
  const named = [
    ...(servers.temporal ? [`Temporal (${servers.temporal})`] : []),
    ...(servers.mongodb ? [`FerretDB (${new URL(servers.mongodb).host})`] : []),
  ];
  if (named.length === 0) return null;
  const who = stdioSharesHostNetwork
    ? 'and so do the local stdio servers, which share this machine\'s network (single tenant)'
    : 'stdio servers do not (each in a network namespace of its own)';
  return `the embedded ${named.join(' and ')} take no credentials and listen on loopback only: this machine's own processes and users reach them; ${who}`;
}

export function logReach(logger: Logger, servers: EmbeddedServers, stdioSharesHostNetwork: boolean): void {
  const line = reachLine(servers, stdioSharesHostNetwork);
  if (!line) return;
  if (stdioSharesHostNetwork) logger.warn({ reach: 'loopback', stdioServers: 'reach' }, line);
  else logger.info({ reach: 'loopback', stdioServers: 'none' }, line);
}
