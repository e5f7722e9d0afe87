// Shared start-up of the production entry points: configuration that must name external
// servers, a logger, clean shutdown on SIGINT/SIGTERM, and a clear message on failure.
import { ConfigError, loadConfig, requireExternal, type Config } from '../core/config';
import { createLogger, type Logger } from '../core/logger';

export type Stop = () => Promise<void>;

export async function runProcess(role: string, needs: { mongo: boolean }, start: (config: Config & { encryptionKey: Buffer }, logger: Logger) => Promise<Stop>): Promise<void> {
  const logger = createLogger(`connector-registry-${role}`);
  let stop: Stop;
  try {
    const config = loadConfig();
    requireExternal(config, needs);
    logger.level = config.logLevel;
    stop = await start(config, logger);
  } catch (err) {
    if (err instanceof ConfigError) logger.fatal(`configuration error: ${err.message}`);
    else logger.fatal({ err }, `the ${role} failed to start`);
    process.exit(1);
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${role} stopping`);
    await stop().catch((err) => logger.error({ err }, 'stop failed'));
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
