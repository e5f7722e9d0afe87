// `npm start`: the whole registry in one process tree on this machine.
import { ConfigError } from '../config/config';
import { createLogger, interactiveLogFormat } from '../platform/logger';
import { startEmbeddedStack } from './embedded-stack';
import { logReady } from './ready-banner';

// A person runs this one: readable lines on a terminal (JSON into a pipe or with LOG_FORMAT=json).
const format = interactiveLogFormat();
const logger = createLogger('connector-registry', undefined, undefined, format);

// A ref'd timer for the start-up: if a step ever waits on a promise that nothing will settle,
// Node would otherwise end the process silently with exit code 13 (an unsettled top-level await,
// seen once in a crash test's restart); this way it fails with a message saying what happened.
const STARTUP_LIMIT_MS = 5 * 60_000;
const watchdog = setTimeout(() => {
  logger.fatal(`the registry failed to start: start-up did not finish within ${STARTUP_LIMIT_MS / 1000} s`);
  process.exit(1);
}, STARTUP_LIMIT_MS);

try {
  const stack = await startEmbeddedStack({ logger });
  clearTimeout(watchdog);
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
