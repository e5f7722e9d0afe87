// `npm start`: the whole registry in one process tree on this machine.
import { ConfigError } from '../config/config';
import { createLogger, interactiveLogFormat } from '../platform/logger';
import { startEmbeddedStack } from './embedded-stack';
import { logReady } from './ready-banner';
import { toolchainVariable } from './toolchain/toolchain-env';

// A person runs this one: readable lines on a terminal (JSON into a pipe or with LOG_FORMAT=json).
const format = interactiveLogFormat();
const logger = createLogger('connector-registry', undefined, undefined, format);

// A ref'd timer for the start of the servers: if a step ever waits on a promise that nothing will
// settle, Node would otherwise end the process silently with exit code 13 (an unsettled top-level
// await, seen once in a crash test's restart); this way it fails with a message saying what
// happened. It is armed once the servers' binaries are there: a first start that builds them
// from Go modules takes minutes, and shows its own progress meanwhile.
const START_LIMIT_S = Number(toolchainVariable('CONNECTOR__START_TIMEOUT_S')) || 5 * 60;
let watchdog: NodeJS.Timeout | undefined;
const armWatchdog = () => {
  watchdog = setTimeout(() => {
    logger.fatal(`the registry failed to start: its servers did not start within ${START_LIMIT_S} s`);
    process.exit(1);
  }, START_LIMIT_S * 1000);
};

try {
  const stack = await startEmbeddedStack({ logger, onServersStarting: armWatchdog });
  clearTimeout(watchdog);
  logReady(logger, format, stack);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    await stack.stop({ exiting: true });
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
