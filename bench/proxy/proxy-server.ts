// Bench proxy: createMcpProxy with a static route table, in its own process, as the service runs
// it (one node http server dispatching the MCP path, recording the proxy's series unless
// BENCH_METRICS=0). Routes come from BENCH_ROUTES (JSON).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../core/logger';
import { createMetrics } from '../../core/metrics';
import { connectorIdFromPath } from '../../proxy/mcp-path';
import { createMcpProxy } from '../../proxy/mcp-proxy';
import type { Route } from '../../proxy/route';
import { staticRoutes } from '../../proxy/static-routes';

const routes = staticRoutes(JSON.parse(process.env.BENCH_ROUTES ?? '{}') as Record<string, Route>);
const metrics = process.env.BENCH_METRICS === '0' ? undefined : createMetrics();
const proxy = createMcpProxy({ routes, policy: { blockPrivateNetworks: false }, logger: createLogger('bench-proxy', 'warn'), metrics });
const server = http.createServer((req, res) => {
  const id = connectorIdFromPath(req.url ?? '/');
  if (id === null) res.writeHead(404).end();
  else proxy.handle(req, res, id);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => {
  proxy.close();
  process.exit(0);
});
