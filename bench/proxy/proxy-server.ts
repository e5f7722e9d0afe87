// Bench proxy: the production proxy role in its own process, built from configuration as
// dist/proxy.mjs builds it (service/proxy-role.ts: the same caller gate, pools and policy; the
// same HTTP server with its Origin rule and series), except that routes come from a static table
// (BENCH_ROUTES, JSON; a route's `dpopKeyJwk` is opened as the registry's routes open their sealed
// key) behind the same RouteCache instead of from Temporal. Configured by the
// production variables the bench sets (PORT, BASE_URL, CONNECTOR__*); BENCH_METRICS=0 records
// no series. With MONGODB_URI set (BENCH_AUDIT=1) every call is audited there, through the
// service's queue and store, unless BENCH_NO_AUDIT=1 (the noaudit variant).
import cluster from 'node:cluster';
import v8 from 'node:v8';
import { loadConfig } from '../../config/config';
import { createLogger } from '../../platform/logger';
import { createMcpProxy } from '../../proxy/mcp-proxy';
import type { Route } from '../../proxy/route';
import { RouteCache } from '../../proxy/route-cache';
import { staticRoutes } from '../../proxy/static-routes';
import { createHttpServer, listen } from '../../service/http-server';
import { createProcessMetrics } from '../../service/metrics';
import { auditQueueOf, originPolicyOf, proxyOptionsOf } from '../../service/proxy-role';
import { openMongo } from '../../service/services';
import { sharedLimitsOf } from '../../service/shared-limits';
import { superviseWorkers } from '../../service/process-cluster';
import { openDpopKey } from '../../platform/dpop-proof';

const config = loadConfig();
const logger = createLogger('bench-proxy', 'warn');
// PROXY_PROCESSES > 1: as stack/proxy.ts runs it, N processes on one port behind node:cluster.
if (cluster.isPrimary && config.proxyProcesses > 1) {
  superviseWorkers(config.proxyProcesses, logger);
} else {
  await serve();
}

async function serve(): Promise<void> {
  // As in production, the route source can refresh a token, so every request's body is kept for a
  // retry (BodyRecorder); the bench upstreams never answer 401, so it is never called.
  const table = staticRoutes(withDpopKeys(JSON.parse(process.env.BENCH_ROUTES ?? '{}') as Record<string, Route & { dpopKeyJwk?: string }>));
  const routes = new RouteCache({ ...table, refresh: (id) => table.get(id) });
  const metrics = process.env.BENCH_METRICS === '0' ? undefined : createProcessMetrics();
  const mongo = config.mongo.uri && process.env.BENCH_NO_AUDIT !== '1' ? await openMongo(config.mongo.uri, config.mongo.database, config.callAudit.days) : null;
  const audit = mongo ? auditQueueOf(config, logger, mongo.callStore, metrics) : undefined;
  // BENCH_SHARED_LIMITS=1: the per-owner limits shared through the database, as dist/proxy.mjs has them.
  const shared = process.env.BENCH_SHARED_LIMITS === '1' && mongo ? sharedLimitsOf(mongo.client.db(config.mongo.database), config, logger) : undefined;
  const proxy = createMcpProxy({ ...proxyOptionsOf(config, logger, routes, metrics, shared), audit });
  const server = createHttpServer({ proxy, origin: originPolicyOf(config), limits: config.http, metrics });
  const port = await listen(server, config.port, config.host);
  console.log(`READY ${port}`);
  process.on('SIGTERM', () => {
    proxy.close();
    process.exit(0);
  });
  // SIGUSR2 (the bench, after streams closed): a full GC, then the heap and RSS on stderr, to tell
  // memory still in use (a leak) from memory V8 keeps until its next major GC.
  process.on('SIGUSR2', () => {
    (globalThis as { gc?: () => void }).gc?.();
    const { heapUsed, heapTotal, external, rss } = process.memoryUsage();
    const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
    const spaces = v8.getHeapSpaceStatistics().map((s) => `${s.space_name.replace(/_space$/, '')} ${mb(s.physical_space_size)}`).join(', ');
    process.stderr.write(`  after a forced full GC: proxy heap used ${mb(heapUsed)} MB of ${mb(heapTotal)} (resident by space: ${spaces}), external ${mb(external)} MB, RSS ${mb(rss)} MB\n`);
  });
}

function withDpopKeys(table: Record<string, Route & { dpopKeyJwk?: string }>): Record<string, Route> {
  return Object.fromEntries(Object.entries(table).map(([id, { dpopKeyJwk, ...route }]) => [
    id, dpopKeyJwk && route.kind === 'connected' ? { ...route, dpop: openDpopKey(dpopKeyJwk) } : route,
  ]));
}
