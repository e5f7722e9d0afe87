// `npm run api`: the REST API against an external Temporal cluster and MongoDB.
import { createHttpServer, listen } from './http-server';
import { drainServer } from './server-drain';
import { runProcess } from './process-main';
import { createProcessMetrics, serveMetrics } from './metrics';
import { authenticatorOf, buildApi, originPolicyOf } from './roles';
import { openMongo, openTemporal, secretBox } from './services';
import { sharedLimitsOf } from './shared-limits';

await runProcess('api', { mongo: true }, async (config, logger, tracing) => {
  const mongo = await openMongo(config.mongo.uri!, config.mongo.database, config.callAudit.days);
  const metrics = createProcessMetrics();
  const metricsServing = await serveMetrics(config, metrics, authenticatorOf(config), logger);
  const temporal = await openTemporal(config.temporal.address!, config.temporal.namespace, config.temporal.access, tracing?.clientInterceptors);
  // The owner's request rate holds across every API process (service/shared-limits.ts).
  const limits = sharedLimitsOf(mongo.client.db(config.mongo.database), config, logger);
  const { api, close: closeApi } = buildApi({ config, logger, secrets: secretBox(config.encryptionKey), mongo, temporal, temporalAddress: config.temporal.address!, metrics, limits });
  const server = createHttpServer({ api, origin: originPolicyOf(config), limits: config.http, metrics, metricsEndpoint: metricsServing.endpoint, tracer: tracing?.tracer });
  const port = await listen(server, config.port, config.host);
  logger.info({ port }, `api listening on ${config.host}:${port}`);
  return async () => {
    await drainServer(server); // what is in flight is answered first
    await metricsServing.close();
    await closeApi();
    await temporal.connection.close();
    await mongo.client.close();
  };
});
