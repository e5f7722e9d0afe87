// `npm start`: the whole registry in one process tree on this machine.
import { ConfigError } from '../core/config';
import { createLogger } from '../core/logger';
import { startEmbeddedStack } from './embedded-stack';

const logger = createLogger('connector-registry');

try {
  const stack = await startEmbeddedStack({ logger });
  logger.info(
    { api: stack.baseUrl, temporal: stack.temporalAddress, temporalUi: stack.temporalUiUrl, mongodb: stack.mongoUri.replace(/\/\/[^@]*@/, '//***@') },
    `connector registry ready at ${stack.baseUrl} (Temporal Web UI: ${stack.temporalUiUrl ?? 'external Temporal'})`,
  );
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
} catch (err) {
  if (err instanceof ConfigError) {
    logger.fatal(`configuration error: ${err.message}`);
  } else {
    logger.fatal({ err }, 'the registry failed to start');
  }
  process.exit(1);
}
