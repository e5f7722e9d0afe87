// Stopping a server without cutting what it is serving (SIGTERM to an API or proxy replica, as a
// rolling update or a scale-down sends it): it stops accepting connections at once, answers the
// requests it has (those arriving on kept-alive connections meanwhile with `Connection: close`,
// so that clients go elsewhere), closes each connection as it falls idle, and gives long-lived
// streams a bounded grace. MCP GET streams carry nothing in flight (a client reopens one where it
// can), so they go after a short grace; everything else may finish within the longer one, past
// which the rest is cut.
import type http from 'node:http';
import type { Socket } from 'node:net';

export interface DrainOptions {
  /** The most any request may still take (default 20 s; the chart's pods have 30 s to stop). */
  graceMs?: number;
  /** How long an MCP GET stream is left open (default 2 s). */
  streamGraceMs?: number;
}

interface DrainState {
  draining: boolean;
  /** Open MCP GET streams, cut first. */
  streams: Set<http.ServerResponse>;
  /** Open connections (one entry per connection, not per request). */
  sockets: Set<Socket>;
}

const DRAIN = Symbol('drain');
type Drainable = http.Server & { [DRAIN]?: DrainState };

export function drainStateOf(server: http.Server): DrainState {
  let state = (server as Drainable)[DRAIN];
  if (state) return state;
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return ((server as Drainable)[DRAIN] = state = { draining: false, streams: new Set(), sockets });
}

/** Responses not yet begun on connections open now say `Connection: close` (requests that arrive later are told so by the server). */
function closeAfterAnswers(state: DrainState): void {
  for (const socket of state.sockets) {
    const res = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage;
    if (res && !res.headersSent) res.shouldKeepAlive = false;
  }
}

/** Counts `res` among the streams to cut first when the server drains. */
export function drainFirst(state: DrainState, res: http.ServerResponse): void {
  state.streams.add(res);
  res.on('close', () => state.streams.delete(res));
}

/** Resolves once every connection is closed: all answered, or cut at the grace's end. */
export async function drainServer(server: http.Server, options: DrainOptions = {}): Promise<void> {
  const state = drainStateOf(server);
  state.draining = true;
  closeAfterAnswers(state);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timers = [
    setInterval(() => server.closeIdleConnections(), 100),
    setTimeout(() => { for (const res of state.streams) res.destroy(); }, options.streamGraceMs ?? 2_000),
  ];
  let graceOver!: NodeJS.Timeout;
  await Promise.race([closed, new Promise((resolve) => (graceOver = setTimeout(resolve, options.graceMs ?? 20_000)))]);
  for (const timer of [...timers, graceOver]) clearTimeout(timer);
  server.closeAllConnections();
  await closed;
}
