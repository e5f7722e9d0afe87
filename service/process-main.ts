// Shared start-up of the production entry points: configuration that must name external
// servers, a logger, clean shutdown on SIGINT/SIGTERM, and a clear message on failure.
import cluster from 'node:cluster';
import { ConfigError, loadConfig, requireExternal, type Config } from '../config/config';
import { createLogger, type Logger } from '../platform/logger';
import { warnOldNames } from '../config/renamed-variables';
import { startTracing, type Tracing } from './tracing';

export type Stop = () => Promise<void>;

type Start = (config: Config & { encryptionKey: Buffer }, logger: Logger, tracing: Tracing | null) => Promise<Stop>;

export async function runProcess(role: string, needs: { mongo: boolean }, start: Start): Promise<void> {
  const name = `connector-registry-${role}`;
  const logger = createLogger(name);
  let stop: Stop;
  try {
    const config = loadConfig();
    logger.level = config.logLevel;
    // Before anything else can stop the start; a proxy's cluster workers leave it to their primary, so that a start warns once.
    if (!cluster.isWorker) warnOldNames(logger, config.oldVariableNames);
    requireExternal(config, needs);
    const tracing = await startTracing(config.tracing, name, logger);
    const stopRole = await start(config, logger, tracing);
    // The last spans (the shutdown's own requests included) leave before the process does.
    stop = tracing ? () => stopRole().finally(() => tracing.flush()) : stopRole;
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
