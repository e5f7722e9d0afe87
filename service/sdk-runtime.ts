// The Temporal SDK's process-wide runtime: where its log lines go and where its metrics are served.
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../platform/logger';
import { activityFailureLine } from './activity-failure-line';
import { freePortBelowEphemeral } from './free-port';

let runtimeInstalled: Promise<string> | undefined;

/**
 * Routes the SDK's log lines, its Rust core's among them, into the service's logger, and has its
 * worker metrics served on a loopback port of their own, once per process. Resolves to that
 * port's scrape URL (merged into /metrics at each scrape).
 */
export function installSdkRuntime(logger: Logger): Promise<string> {
  runtimeInstalled ??= freePortBelowEphemeral().then((port) => {
    installWith(logger, port);
    return `http://127.0.0.1:${port}/metrics`;
  });
  return runtimeInstalled;
}

function installWith(logger: Logger, metricsPort: number): void {
  const sdk = logger.child({ component: 'temporal-sdk' });
  const level = (['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as LogLevel[]).find((l) => l.toLowerCase() === logger.level) ?? 'WARN';
  const sdkLevel = level === 'INFO' ? 'WARN' : level;
  Runtime.install({
    logger: new DefaultLogger(sdkLevel, ({ level: l, message, meta }) => {
      const method = l === 'ERROR' ? 'error' : l === 'WARN' ? 'warn' : l === 'INFO' ? 'info' : 'debug';
      // taskToken is an opaque routing handle, not a secret, but it is noise in a log line.
      const { taskToken, ...rest } = (meta ?? {}) as Record<string, unknown>;
      const typed = activityFailureLine(message, rest);
      if (typed) sdk.warn(typed.fields, typed.message);
      else sdk[method](rest, message);
    }),
    telemetryOptions: {
      // Without `forward`, the core writes its own lines straight to stderr as coloured text, past
      // the service's logger: a JSON log (LOG_FORMAT=json) then holds lines no reader can parse,
      // and none of them is redacted.
      logging: { forward: {}, filter: { core: sdkLevel, other: 'ERROR' } },
      metrics: { prometheus: { bindAddress: `127.0.0.1:${metricsPort}`, countersTotalSuffix: true, useSecondsForDurations: true } },
    },
  });
}
