// The embedded stack: a Temporal dev server and FerretDB under DATA_DIR (unless external ones
// are configured), and the worker, API and proxy in this process on one port.
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { loadConfig, type Config } from '../config/config';
import { createLogger, type Logger } from '../platform/logger';
import type { ConnectorStore } from '../store/connector-store';
import { startFerretDb } from './servers/ferretdb-server';
import { serverBinaries } from './server-binaries';
import { ensurePrivateDir } from '../service/private-files';
import { onFreePorts } from './preferred-port';
import { preferredOrFree, USUAL_PORTS } from '../service/free-port';
import { startTemporalDevServer } from './servers/temporal-dev-server';
import { runStopSteps } from '../platform/stop-steps';
import { stepClock, TIMED_LINES } from '../platform/step-clock';
import type { StackStopStep } from './embedded-roles';

export interface EmbeddedStack {
  config: Config;
  baseUrl: string;
  port: number;
  /** CONNECTOR__METRICS_PORT's actual port, when set. */
  metricsPort?: number;
  temporalAddress: string;
  temporalUiUrl?: string;
  mongoUri: string;
  temporal: Client;
  store: ConnectorStore;
  /** The dev servers this stack started (null when external): for the benchmarks' CPU accounting. */
  serverPids: { temporal: number | null; ferretdb: number | null };
  stop(options?: StopOptions): Promise<void>;
}

export interface StopOptions {
  /** The process exits right after: what would only free its memory is left to the exit. */
  exiting?: boolean;
}

export interface EmbeddedOptions {
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Preferred ports of the dev servers; busy ones fall back to free ports. */
  temporalPort?: number;
  temporalUiPort?: number;
  mongoPort?: number;
  /** No Temporal Web UI whatever CONNECTOR__TEMPORAL_UI says; absent: as it says (default off). */
  headless?: boolean;
  /**
   * Called once the servers' binaries are there (found, downloaded or built) and their start
   * begins: `npm start` times the start-up from here, never a first build's minutes.
   */
  onServersStarting?: () => void;
}

export async function startEmbeddedStack(options: EmbeddedOptions = {}): Promise<EmbeddedStack> {
  const config = loadConfig(options.env ?? process.env);
  const logger = options.logger ?? createLogger('connector-registry', config.logLevel);
  const dataDir = path.resolve(config.dataDir);
  ensurePrivateDir(dataDir);
  const stops: StackStopStep[] = [];
  // Last started, first stopped; a second call finds nothing left to stop.
  const stopAll = ({ exiting = false }: StopOptions = {}) =>
    runStopSteps(logger, TIMED_LINES.stackStopped, stops.splice(0).reverse().filter((step) => !(exiting && step.onlyFreesMemory)));
  try {
    const binaries = await serverBinaries(config, logger);
    options.onServersStarting?.();
    // From here: a first start's builds of the servers are not part of what it times.
    const clock = stepClock();
    // The roles' code loads while the servers start: each spends most of its start on its own, and
    // the loading (about 0.75 s) holds this thread, so it begins once both servers' processes run.
    const spawned = countdown([!config.temporal.address, !config.mongo.uri].filter(Boolean).length);
    const onSpawned = spawned.arrive;
    const serversStarting = Promise.allSettled([
      config.temporal.address ? null : onFreePorts(async (fallback) => startTemporalDevServer({
        dataDir, headless: options.headless ?? !config.temporal.webUi, log: logger, binary: binaries.temporal, onSpawned,
        port: fallback ? 0 : await preferredOrFree(options.temporalPort ?? USUAL_PORTS.temporal),
        uiPort: fallback ? 0 : await preferredOrFree(options.temporalUiPort ?? USUAL_PORTS.temporalUi),
      })),
      config.mongo.uri ? null : onFreePorts(async (fallback) => startFerretDb({ dataDir, port: fallback ? 0 : await preferredOrFree(options.mongoPort ?? USUAL_PORTS.mongodb), log: logger, binary: binaries.ferretdb, onSpawned })),
    ]);
    await Promise.race([spawned.done, serversStarting]);
    const loading = import('./embedded-roles');
    loading.catch(() => undefined); // awaited below, unless a server failed first
    const [temporalStart, ferretStart] = await serversStarting;
    // Whichever started is stopped with the rest if the other failed.
    const temporalServer = temporalStart.status === 'fulfilled' ? temporalStart.value : null;
    const ferret = ferretStart.status === 'fulfilled' ? ferretStart.value : null;
    if (temporalServer) stops.push({ name: 'temporal', stop: () => temporalServer.stop() });
    if (ferret) stops.push({ name: 'ferretdb', stop: () => ferret.stop() });
    for (const start of [temporalStart, ferretStart]) if (start.status === 'rejected') throw start.reason;
    clock.lap('temporal and ferretdb');
    const temporalAddress = config.temporal.address ?? temporalServer!.address;
    const mongoUri = config.mongo.uri ?? ferret!.uri;
    const { startRoles } = await loading;
    clock.lap('code loaded');
    const started = { temporal: temporalServer?.address ?? null, mongodb: ferret?.uri ?? null };
    const roles = await startRoles({ config, logger, temporalAddress, mongoUri, started, stops, clock });
    // Since the process began too: loading its code and finding the servers' binaries come first.
    logger.info({ ...clock.summary(), sinceProcessStartMs: Math.round(performance.now()) }, TIMED_LINES.stackStarted);

    return {
      config, baseUrl: config.baseUrl, port: roles.port, metricsPort: roles.metricsPort, temporalAddress, temporalUiUrl: temporalServer?.uiUrl, mongoUri,
      temporal: roles.temporal, store: roles.store, serverPids: { temporal: temporalServer?.pid ?? null, ferretdb: ferret?.pid ?? null }, stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Done once `arrive` has been called `count` times (at once when 0); calls beyond are ignored. */
function countdown(count: number): { arrive: () => void; done: Promise<void> } {
  let left = count;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  if (left <= 0) finish();
  return { arrive: () => { if (--left === 0) finish(); }, done };
}
