// `npm run worker`: a Temporal worker against an external Temporal cluster and MongoDB.
import { runProcess } from './process-main';
import { startWorkerRole } from './roles';
import { openMongo, secretBox } from './services';

await runProcess('worker', { mongo: true }, async (config, logger) => {
  const mongo = await openMongo(config.mongo.uri!, config.mongo.database);
  const worker = await startWorkerRole({ config, logger, secrets: secretBox(config.encryptionKey), mongo, temporalAddress: config.temporal.address! });
  logger.info({ taskQueue: config.temporal.taskQueue }, 'worker running');
  return async () => {
    await worker.stop();
    await mongo.client.close();
  };
});
