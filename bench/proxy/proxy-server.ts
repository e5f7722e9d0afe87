// Bench proxy: createMcpProxy with a static route table, in its own process, as the service runs
// it (one node http server dispatching the MCP path, recording the proxy's series unless
// BENCH_METRICS=0). Routes come from BENCH_ROUTES (JSON). With BENCH_AUDIT_MONGO (a MongoDB URI)
// every call is audited there, through the service's queue and store.
import { MongoClient } from 'mongodb';
import { CallAuditQueue } from '../../proxy/call-audit-queue';
import { CallAuditStore } from '../../store/call-audit-store';
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
const logger = createLogger('bench-proxy', 'warn');
const audit = await auditQueue(process.env.BENCH_AUDIT_MONGO);
const proxy = createMcpProxy({ routes, policy: { blockPrivateNetworks: false }, logger, metrics, audit });
const server = http.createServer((req, res) => {
  const id = connectorIdFromPath(req.url ?? '/');
  if (id === null) res.writeHead(404).end();
  else proxy.handle(req, res, id);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
async function auditQueue(uri: string | undefined): Promise<CallAuditQueue | undefined> {
  if (!uri) return undefined;
  const client = await MongoClient.connect(uri);
  const store = new CallAuditStore(client.db('bench'), 30);
  await store.ensureIndexes();
  return new CallAuditQueue({ write: (entries) => store.insert(entries), capacity: 10_000, logger, metrics });
}

process.on('SIGTERM', () => {
  proxy.close();
  process.exit(0);
});
