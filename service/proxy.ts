// `npm run proxy`: the streaming MCP proxy against an external Temporal cluster. Routes come from
// the connector workflows; the database receives the per-call audit and tells of changes made
// elsewhere (the change feed, polled). With CONNECTOR__PROXY_PROCESSES > 1
// it runs as that many processes on one port (service/process-cluster.ts), each with its own route
// cache and audit queue.
import cluster from 'node:cluster';
import { loadConfig } from '../config/config';
import { createLogger } from '../platform/logger';
import { warnOldNames, withCurrentNames } from '../config/renamed-variables';
import { createHttpServer, listen } from './http-server';
import { drainServer } from './server-drain';
import { runProcess } from './process-main';
import { superviseWorkers } from './process-cluster';
import { createProcessMetrics, serveMetrics } from './metrics';
import { authenticatorOf, buildProxy, listenForChanges, originPolicyOf, toolsetSourceOf } from './proxy-role';
import Koa from 'koa';
import { healthRoutes } from '../api/routes/health';
import { openMongo, openTemporal, secretBox, temporalCheck } from './services';
import { sharedLimitsOf } from './shared-limits';

if (cluster.isPrimary && processesWanted() > 1) {
  const logger = createLogger('connector-registry-proxy');
  warnOldNames(logger, withCurrentNames(process.env).oldNames);
  superviseWorkers(processesWanted(), logger);
} else {
  await runProcess('proxy', { mongo: true }, async (config, logger, tracing) => {
    const mongo = await openMongo(config.mongo.uri!, config.mongo.database, config.callAudit.days);
    const temporal = await openTemporal(config.temporal.address!, config.temporal.namespace, config.temporal.access, tracing?.clientInterceptors);
    const metrics = createProcessMetrics();
    const metricsServing = await serveMetrics(config, metrics, authenticatorOf(config), logger);
    // The owner's rate and open streams hold across every proxy process (service/shared-limits.ts).
    const limits = sharedLimitsOf(mongo.client.db(config.mongo.database), config, logger);
    const proxy = buildProxy({ config, logger, secrets: secretBox(config.encryptionKey), temporal, metrics, tracing, callStore: mongo.callStore, toolsetSource: toolsetSourceOf(mongo), limits });
    const changes = listenForChanges(proxy, mongo.changes, logger);
    // Only the health endpoints beside the MCP path, so that an orchestrator can probe it.
    const health = new Koa();
    const temporalReady = temporalCheck(config.temporal.address!, config.temporal.access);
    const routes = healthRoutes({ temporal: temporalReady });
    health.use(routes.routes());
    const server = createHttpServer({ proxy, toolsets: proxy.toolsets, api: health, origin: originPolicyOf(config), limits: config.http, metrics, metricsEndpoint: metricsServing.endpoint });
    const port = await listen(server, config.port, config.host);
    logger.info({ port }, `proxy listening on ${config.host}:${port}`);
    return async () => {
      await drainServer(server); // what is in flight is answered first
      await changes.stop();
      await metricsServing.close();
      await proxy.stop();
      await temporalReady.close();
      await temporal.connection.close();
      await mongo.client.close();
    };
  });
}

/** CONNECTOR__PROXY_PROCESSES; a configuration error is left to runProcess, which names it. */
function processesWanted(): number {
  try {
    return loadConfig().proxyProcesses;
  } catch {
    return 1;
  }
}
