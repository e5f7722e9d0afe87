// A load balancer on loopback in the chart's shape: the Ingress's rules (the paths the route
// declarations give to the proxy, api/ingress-paths.ts) choose the proxy replicas or the API
// replicas, and each request goes to the next replica of its pool, on a fresh connection, with no
// affinity of any kind. A replica that refuses the connection (it is dead) is skipped for the
// next, as ingress-nginx does; one that dies with the request sent answers 502, or cuts the
// response it was streaming. Bodies are read whole first (they are small), so that a request can
// be sent again to the next replica.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { proxyIngressPaths } from '../../api/ingress-paths';

export type PoolName = 'api' | 'proxy';

export interface Balancer {
  port: number;
  url: string;
  /** The replicas' ports, by pool; a test may change them (a replica replaced). */
  pools: Record<PoolName, number[]>;
  /** Requests each replica port answered (a response head came back). */
  served: Map<number, number>;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade']);
const proxyPaths = proxyIngressPaths().map((path) => new RegExp(`^${path}`, 'i'));

export function poolOf(url: string): PoolName {
  const path = url.split('?', 1)[0]!;
  return proxyPaths.some((pattern) => pattern.test(path)) ? 'proxy' : 'api';
}

export async function startBalancer(pools: Record<PoolName, number[]>): Promise<Balancer> {
  const next: Record<PoolName, number> = { api: 0, proxy: 0 };
  const served = new Map<number, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), poolOf(req.url ?? '/'), new Set()));
  });

  /** To the pool's next replica that has not refused this request already. */
  function forward(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, pool: PoolName, refused: Set<number>): void {
    const replicas = pools[pool];
    // Before its replicas are up (the balancer binds first, so that BASE_URL can name its port).
    if (replicas.length === 0) return void res.writeHead(503, { 'content-type': 'text/plain' }).end(`no ${pool} replica yet`);
    let target = replicas[next[pool]++ % replicas.length]!;
    for (let i = 0; refused.has(target) && i < replicas.length; i++) target = replicas[next[pool]++ % replicas.length]!;
    const upstream = http.request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers, agent: false }, (answer) => {
      served.set(target, (served.get(target) ?? 0) + 1);
      const headers: string[] = [];
      for (let i = 0; i < answer.rawHeaders.length; i += 2) {
        if (!HOP_BY_HOP.has(answer.rawHeaders[i]!.toLowerCase())) headers.push(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
      }
      res.writeHead(answer.statusCode!, headers);
      res.flushHeaders();
      answer.pipe(res);
      answer.on('error', () => res.destroy());
      answer.on('aborted', () => res.destroy());
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' && refused.add(target).size < replicas.length) return forward(req, res, body, pool, refused);
      if (res.headersSent) return res.destroy();
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`the replica on port ${target} failed: ${err.code ?? err.message}`);
    });
    // The client left: so does the request to the replica (an SSE stream ends upstream too).
    res.on('close', () => upstream.destroy());
    upstream.end(body);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `http://127.0.0.1:${bound}`,
    pools,
    served,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
