// The embedded stack: a Temporal dev server and FerretDB under DATA_DIR (unless external ones
// are configured), and the worker, API and proxy in this process on one port.
import path from 'node:path';
import v8 from 'node:v8';
import type { Client } from '@temporalio/client';
import { loadConfig, type Config } from '../config/config';
import { createLogger, type Logger } from '../platform/logger';
import type { ConnectorStore } from '../store/connector-store';
import { startFerretDb } from './servers/ferretdb-server';
import { serverBinaries } from './server-binaries';
import { ensurePrivateDir } from '../service/private-files';
import { onFreePorts } from './preferred-port';
import { preferredOrFree, USUAL_PORTS } from '../service/free-port';
import { logReach } from './servers/reach-line';
import { startTemporalDevServer } from './servers/temporal-dev-server';
import { closeServer, createHttpServer, listen } from '../service/http-server';
import { createProcessMetrics, serveMetrics } from '../service/metrics';
import { authenticatorOf, buildApi, buildProxy, originPolicyOf, startWorkerRole } from '../service/roles';
import { encryptionKey, openMongo, openTemporal, secretBox } from '../service/services';
import { startTracing } from '../service/tracing';
import { runStopSteps, type StopStep } from '../platform/stop-steps';
import { stepClock, TIMED_LINES } from '../platform/step-clock';
import { toolsetSourceOf } from '../service/proxy-role';

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

/** A stop step that only frees this process's memory: skipped when the process exits anyway. */
type StackStopStep = StopStep & { onlyFreesMemory?: true };

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
    const secrets = secretBox(encryptionKey(config, logger));
    const tracing = await startTracing(config.tracing, 'connector-registry', logger);
    if (tracing) stops.push({ name: 'tracing', stop: () => tracing.flush() });
    // Both at once: neither needs the other, and each spends most of its start on its own.
    const [temporalStart, ferretStart] = await Promise.allSettled([
      config.temporal.address ? null : onFreePorts(async (fallback) => startTemporalDevServer({
        dataDir, headless: options.headless ?? !config.temporal.webUi, log: logger, binary: binaries.temporal,
        port: fallback ? 0 : await preferredOrFree(options.temporalPort ?? USUAL_PORTS.temporal),
        uiPort: fallback ? 0 : await preferredOrFree(options.temporalUiPort ?? USUAL_PORTS.temporalUi),
      })),
      config.mongo.uri ? null : onFreePorts(async (fallback) => startFerretDb({ dataDir, port: fallback ? 0 : await preferredOrFree(options.mongoPort ?? USUAL_PORTS.mongodb), log: logger, binary: binaries.ferretdb })),
    ]);
    // Whichever started is stopped with the rest if the other failed.
    const temporalServer = temporalStart.status === 'fulfilled' ? temporalStart.value : null;
    const ferret = ferretStart.status === 'fulfilled' ? ferretStart.value : null;
    if (temporalServer) stops.push({ name: 'temporal', stop: () => temporalServer.stop() });
    if (ferret) stops.push({ name: 'ferretdb', stop: () => ferret.stop() });
    for (const start of [temporalStart, ferretStart]) if (start.status === 'rejected') throw start.reason;
    clock.lap('temporal and ferretdb');
    const temporalAddress = config.temporal.address ?? temporalServer!.address;
    const mongoUri = config.mongo.uri ?? ferret!.uri;

    const mongo = await openMongo(mongoUri, config.mongo.database, config.callAudit.days);
    stops.push({ name: 'mongodb client', stop: () => mongo.client.close() });
    const temporal = await openTemporal(temporalAddress, config.temporal.namespace, undefined, tracing?.clientInterceptors);
    stops.push({ name: 'temporal client', stop: () => temporal.connection.close() });
    clock.lap('clients');

    const metrics = createProcessMetrics();
    const metricsServing = await serveMetrics(config, metrics, authenticatorOf(config), logger);
    stops.push({ name: 'metrics', stop: metricsServing.close });
    // Before the HTTP server listens: /readyz answering means the worker polls too. (The Temporal
    // SDK's metrics exporter it starts takes a port below the ephemeral range, never PORT's.)
    // npm start gives this isolate (the proxy and the API) an 8 MB young generation: at 4 MB the
    // MCP path cost a third more CPU per request, most of it in scavenges (bench:proxy, issue 29).
    // The workflow threads the worker starts next keep 4 MB: their heap holds the workflow cache,
    // and a small young generation is what kept it low under replay churn (README, HEAP_MB).
    // V8 reads the flag when an isolate is made, so it applies to those threads only.
    if (youngGenerationWas(8)) v8.setFlagsFromString('--max-semi-space-size=4');
    const worker = await startWorkerRole({ config, logger, secrets, mongo, temporalAddress, metrics, tracing });
    // The servers stop once the worker has handed back its work, while it lets go of its cached
    // workflows (seconds with thousands cached: the refreshes due meanwhile wait for the restart);
    // the last step waits for that.
    stops.push({ name: 'worker', stop: () => worker.stop().handedBack });
    stops.unshift({ name: 'worker cache let go', stop: () => worker.stop().stopped, onlyFreesMemory: true });
    clock.lap('worker');
    logReach(logger, { temporal: temporalServer?.address ?? null, mongodb: ferret?.uri ?? null }, worker.stdioSharesHostNetwork);
    const proxy = buildProxy({ config, logger, secrets, temporal, metrics, tracing, callStore: mongo.callStore, toolsetSource: toolsetSourceOf(mongo) });
    stops.push({ name: 'proxy', stop: () => proxy.stop() });
    // One process: a change the API made is seen by the proxy at once, not after its route TTL.
    const onChanged = (connectorId: string) => {
      proxy.invalidate(connectorId);
      proxy.toolsets?.memberChanged(connectorId);
    };
    const onToolsetChanged = (toolsetId: string) => proxy.toolsets?.toolsetChanged(toolsetId);
    const { api, close: closeApi } = buildApi({ config, logger, secrets, mongo, temporal, temporalAddress, onChanged, onToolsetChanged, metrics });
    stops.push({ name: 'api', stop: closeApi });
    const server = createHttpServer({ api, proxy, toolsets: proxy.toolsets, origin: originPolicyOf(config), limits: config.http, metrics, metricsEndpoint: metricsServing.endpoint, tracer: tracing?.tracer });
    const port = await listen(server, config.port, config.host);
    stops.push({ name: 'http server', stop: () => closeServer(server) });
    clock.lap('api and proxy');
    // Since the process began too: loading its code and finding the servers' binaries come first.
    logger.info({ ...clock.summary(), sinceProcessStartMs: Math.round(performance.now()) }, TIMED_LINES.stackStarted);

    const baseUrl = config.baseUrl;
    return {
      config, baseUrl, port, metricsPort: metricsServing.port, temporalAddress, temporalUiUrl: temporalServer?.uiUrl, mongoUri,
      temporal, store: mongo.store, serverPids: { temporal: temporalServer?.pid ?? null, ferretdb: ferret?.pid ?? null }, stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Whether this process was started with `--max-semi-space-size=<mb>` (npm start's flags). */
function youngGenerationWas(mb: number): boolean {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return flags.includes(`--max-semi-space-size=${mb}`);
}
