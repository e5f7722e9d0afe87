// SSE delivery latency: a source in this process writes events stamped with this process's
// monotonic clock; a reader, also here, subtracts the stamp from the time it reads each event,
// directly or through a proxy. One clock, so no cross-process clock error.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

export interface SseSource {
  port: number;
  close(): Promise<void>;
}

/** GET /sse?count=N&interval=MS streams N events, one every MS milliseconds. */
export async function startSseSource(): Promise<SseSource> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const count = Number(url.searchParams.get('count') ?? 100);
    const interval = Number(url.searchParams.get('interval') ?? 5);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    let sent = 0;
    const timer = setInterval(() => {
      res.write(`id: ${sent}\ndata: ${process.hrtime.bigint()}\n\n`);
      if (++sent === count) {
        clearInterval(timer);
        res.end();
      }
    }, interval);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Latency of each event from write to read, in milliseconds; also counts events read. */
export async function measureSse(pool: Pool, path: string, headers: Record<string, string>, count: number, interval: number) {
  const res = await pool.request({ method: 'GET', path: `${path}?count=${count}&interval=${interval}`, headers: { accept: 'text/event-stream', ...headers } });
  if (res.statusCode !== 200) throw new Error(`SSE answered ${res.statusCode}`);
  const latenciesMs: number[] = [];
  let buffer = '';
  for await (const chunk of res.body) {
    const readAt = process.hrtime.bigint();
    buffer += chunk.toString();
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const stamp = /data: (\d+)/.exec(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (stamp) latenciesMs.push(Number(readAt - BigInt(stamp[1]!)) / 1e6);
    }
  }
  return latenciesMs;
}
