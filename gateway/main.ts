// The gateway as a program: configured by env (see config.ts), serving until stopped (exit 0) or
// until the stdio server goes away (non-zero exit, with the reason on stderr). As a Kubernetes
// sidecar, that exit restarts the container; the local runtime reads it as the connector's end.
import { createLogger } from '../platform/logger';
import { AttachSource } from './attach-source';
import { GatewayConfigError, loadGatewayConfig, type GatewayConfig } from './config';
import { ProcessSource } from './process-source';
import { startGateway } from './start-gateway';
import type { StdioExit, StdioSource } from './stdio-source';

const CONFIG_EXIT_CODE = 2;

async function main(): Promise<void> {
  const logger = createLogger('gateway');
  let config: GatewayConfig;
  try {
    config = loadGatewayConfig(process.env, process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof GatewayConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(CONFIG_EXIT_CODE);
  }
  const gateway = await startGateway({
    source: sourceFor(config),
    host: config.host,
    port: config.port,
    idleTimeoutMs: config.idleTimeoutMs,
    firstRequestTimeoutMs: config.firstRequestTimeoutMs,
    maxSessions: config.maxSessions,
    secret: config.secret,
    logger,
  });
  logger.info({ url: gateway.url, port: gateway.port }, 'gateway listening');

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void gateway.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  const exit = await gateway.exited;
  if (stopping) return;
  stopping = true;
  process.stderr.write(`${exit.reason}\n`);
  await gateway.close();
  process.exit(exitCodeFor(exit));
}

function sourceFor(config: GatewayConfig): StdioSource {
  if (config.source === 'attach') {
    return new AttachSource({ namespace: config.namespace, pod: config.pod, container: config.container });
  }
  // The server gets this process's environment, except the gateway's own settings.
  const env = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith('GATEWAY_')),
  );
  return new ProcessSource({ command: config.command, args: config.args, env });
}

/** The server's own code when it failed with one; 1 otherwise (its ending is a failure here). */
function exitCodeFor(exit: StdioExit): number {
  return exit.code !== null && exit.code > 0 && exit.code < 256 ? exit.code : 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
