// `npm run proxy`: the streaming MCP proxy against an external Temporal cluster. Routes come from
// the connector workflows; the database only receives the per-call audit. With CONNECTOR__PROXY_PROCESSES > 1
// it runs as that many processes on one port (service/process-cluster.ts), each with its own route
// cache and audit queue.
import cluster from 'node:cluster';
import { loadConfig } from '../config/config';
import { createLogger } from '../platform/logger';
import { warnOldNames, withCurrentNames } from '../config/renamed-variables';
import { closeServer, createHttpServer, listen } from './http-server';
import { runProcess } from './process-main';
import { superviseWorkers } from './process-cluster';
import { createProcessMetrics, serveMetrics } from './metrics';
import { authenticatorOf, buildProxy, originPolicyOf, toolsetSourceOf } from './proxy-role';
import Koa from 'koa';
import { healthRoutes } from '../api/routes/health';
import { openMongo, openTemporal, secretBox, temporalCheck } from './services';

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
    const proxy = buildProxy({ config, logger, secrets: secretBox(config.encryptionKey), temporal, metrics, tracing, callStore: mongo.callStore, toolsetSource: toolsetSourceOf(mongo) });
    // Only the health endpoints beside the MCP path, so that an orchestrator can probe it.
    const health = new Koa();
    const temporalReady = temporalCheck(config.temporal.address!, config.temporal.access);
    const routes = healthRoutes({ temporal: temporalReady });
    health.use(routes.routes());
    const server = createHttpServer({ proxy, toolsets: proxy.toolsets, api: health, origin: originPolicyOf(config), limits: config.http, metrics, metricsEndpoint: metricsServing.endpoint });
    const port = await listen(server, config.port, config.host);
    logger.info({ port }, `proxy listening on ${config.host}:${port}`);
    return async () => {
      await closeServer(server);
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
