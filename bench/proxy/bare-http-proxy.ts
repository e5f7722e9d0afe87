// The floor for this project's stack: node:http in, http-proxy out through a keep-alive
// http.Agent tuned as the proxy's own pools are (upstream-agents.ts), the Authorization header
// replaced, nothing else (no policy, no auth, no metrics, no audit). The proxy keeps http-proxy as
// its relay, so what it costs above this is the project's own code; what this costs above
// bare-relay.ts is http-proxy's.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import httpProxy from 'http-proxy';

const routes = JSON.parse(process.env.BENCH_BARE_ROUTES ?? '{}') as Record<string, { port: number; path: string }>;
const agent = new http.Agent({ keepAlive: true, maxSockets: 512, scheduling: 'lifo', noDelay: true });
const AUTHORIZATION = `Bearer ${process.env.BENCH_TOKEN ?? 'bench-token'}`;
const relay = httpProxy.createProxyServer({});
relay.on('error', () => undefined);

const server = http.createServer((req, res) => {
  const route = routes[req.url ?? ''];
  if (!route) return void res.writeHead(404).end();
  req.headers.authorization = AUTHORIZATION;
  relay.web(req, res, {
    target: { protocol: 'http:', hostname: '127.0.0.1', host: '127.0.0.1', port: String(route.port), path: route.path },
    agent, ignorePath: true, toProxy: true, xfwd: false, changeOrigin: true,
  }, () => res.destroy());
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => process.exit(0));
