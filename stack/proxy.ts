// `npm run proxy`: the streaming MCP proxy against an external Temporal cluster. It needs no
// database: routes come from the connector workflows.
import { closeServer, createHttpServer, listen } from './http-server';
import { runProcess } from './process-main';
import { buildProxy, originPolicyOf } from './roles';
import Koa from 'koa';
import { healthRoutes } from '../api/routes/health';
import { openTemporal, secretBox, temporalCheck } from './services';

await runProcess('proxy', { mongo: false }, async (config, logger) => {
  const temporal = await openTemporal(config.temporal.address!, config.temporal.namespace);
  const proxy = buildProxy({ config, logger, secrets: secretBox(config.encryptionKey), temporal });
  // Only the health endpoints beside the MCP path, so that an orchestrator can probe it.
  const health = new Koa();
  const temporalReady = temporalCheck(config.temporal.address!);
  const routes = healthRoutes({ temporal: temporalReady });
  health.use(routes.routes());
  const server = createHttpServer({ proxy, api: health, origin: originPolicyOf(config) });
  const port = await listen(server, config.port, config.host);
  logger.info({ port }, `proxy listening on ${config.host}:${port}`);
  return async () => {
    await closeServer(server);
    proxy.close();
    await temporalReady.close();
    await temporal.connection.close();
  };
});
