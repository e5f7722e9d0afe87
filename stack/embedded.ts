// `npm start`: the whole registry in one process tree on this machine.
import { ConfigError } from '../core/config';
import { createLogger, interactiveLogFormat } from '../core/logger';
import { startEmbeddedStack } from './embedded-stack';
import { logReady } from './ready-banner';

// A person runs this one: readable lines on a terminal (JSON into a pipe or with LOG_FORMAT=json).
const format = interactiveLogFormat();
const logger = createLogger('connector-registry', undefined, undefined, format);

try {
  const stack = await startEmbeddedStack({ logger });
  logReady(logger, format, stack);
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
