// `npm run worker`: a Temporal worker against an external Temporal cluster and MongoDB. It serves
// /healthz and /readyz on PORT (nothing else), so that an orchestrator can probe it like the others.
import Koa from 'koa';
import { healthRoutes } from '../api/routes/health';
import { closeServer, createHttpServer, listen } from './http-server';
import { runProcess } from './process-main';
import { createProcessMetrics, serveMetrics } from './metrics';
import { authenticatorOf, originPolicyOf, startWorkerRole } from './roles';
import { openMongo, secretBox, temporalCheck } from './services';

await runProcess('worker', { mongo: true }, async (config, logger, tracing) => {
  const mongo = await openMongo(config.mongo.uri!, config.mongo.database, config.callAudit.days);
  const metrics = createProcessMetrics();
  const metricsServing = await serveMetrics(config, metrics, authenticatorOf(config), logger);
  const temporalReady = temporalCheck(config.temporal.address!, config.temporal.access);
  let worker: Awaited<ReturnType<typeof startWorkerRole>> | undefined;
  const health = new Koa();
  health.use(healthRoutes({
    temporal: temporalReady,
    database: () => mongo.store.ping(),
    worker: async () => { if (!worker?.isRunning()) throw new Error('the worker is not polling'); },
  }).routes());
  const server = createHttpServer({ api: health, origin: originPolicyOf(config), limits: config.http, metrics, metricsEndpoint: metricsServing.endpoint });
  // The port is held before the worker starts: the Temporal SDK's metrics exporter takes a free
  // port then, and must not take this one.
  const port = await listen(server, config.port, config.host);
  worker = await startWorkerRole({ config, logger, secrets: secretBox(config.encryptionKey), mongo, temporalAddress: config.temporal.address!, metrics, tracing });
  logger.info({ taskQueue: config.temporal.taskQueue, shards: config.temporal.shards, port }, 'worker running');
  return async () => {
    await closeServer(server);
    await metricsServing.close();
    await worker?.stop().stopped;
    await temporalReady.close();
    await mongo.client.close();
  };
});
