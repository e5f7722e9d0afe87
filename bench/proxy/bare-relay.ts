// The floor for a Node relay on this machine: node:http in, a keep-alive http.Agent out, the
// Authorization header replaced, bodies piped both ways, nothing else (no policy, no auth, no
// metrics, no http-proxy). What our proxy costs above this is ours; what this costs above nginx
// is Node's.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const routes = JSON.parse(process.env.BENCH_BARE_ROUTES ?? '{}') as Record<string, { port: number; path: string }>;
const agent = new http.Agent({ keepAlive: true, maxSockets: 512, scheduling: 'lifo', noDelay: true });
const AUTHORIZATION = `Bearer ${process.env.BENCH_TOKEN ?? 'bench-token'}`;

const server = http.createServer((req, res) => {
  const route = routes[req.url ?? ''];
  if (!route) return void res.writeHead(404).end();
  const headers = { ...req.headers, authorization: AUTHORIZATION, host: `127.0.0.1:${route.port}` };
  const upstream = http.request({ host: '127.0.0.1', port: route.port, path: route.path, method: req.method, headers, agent }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => process.exit(0));
