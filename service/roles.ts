// The three roles of the service (worker, API, proxy), each built from configuration and opened
// dependencies. The embedded stack runs all three in one process; the production entry points
// run one each.
import os from 'node:os';
import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { Config } from '../config/config';
import type { Logger } from '../platform/logger';
import type { SecretBox } from '../platform/secret-box';
import { createGuardedFetch } from '../platform/guarded-fetch';
import { authenticatorOf, policyOf, rateLimitOf } from './proxy-role';
import { createApi } from '../api/app';
import { ConnectorCommands } from '../api/connector-commands';
import { createWorkloadActivities } from '../activities/workloads/activities';
import { createWorkloadRuntime, resolvedRuntimeKind } from '../activities/workloads/create-runtime';
import { startExpirySweeper } from './expiry-sweeper';
import { startListIndexRepair } from './list-index-repair';
import { startReconciler } from './reconciler';
import { registerConnectorStates, registerTaskStates } from '../platform/metrics';
import { sdkMetrics, type ProcessMetrics } from './metrics';
import { temporalCheck, type Mongo } from './services';
import type { SharedLimits } from './shared-limits';
import type { Tracing } from './tracing';
import { createWorkers } from './worker-runtime';
import { untilHandedBack } from './worker-hand-back';
import { assertNoStrandedShards } from './worker-shards';
import { ensureRegistrySchedule } from './registry-schedule';
import { startPeriodicPass } from './periodic-pass';
import { openTemporal } from './services';
import { LiveCatalog } from '../store/live-catalog';
import { RegistryStore } from '../store/registry-store';
import { UpstreamClient } from '../proxy/upstream-client';
import { workflowRoutes } from '../proxy/workflow-routes';
import { connectorCalls } from './connector-calls';
import { runStopSteps } from '../platform/stop-steps';
import { stepClock, TIMED_LINES } from '../platform/step-clock';

/** How long a task's call may take to answer (its worker's heartbeats, not this, notice a lost one). */
const TASK_CALL_LIMIT_MS = 24 * 3_600_000;

export interface RoleDeps {
  config: Config;
  logger: Logger;
  secrets: SecretBox;
  /** The process's series; absent in tests that build a role alone. */
  metrics?: ProcessMetrics;
  /** The process's traces; null or absent: off. */
  tracing?: Tracing | null;
}

export { authenticatorOf, buildProxy, originPolicyOf } from './proxy-role';

/** A worker's stop, in two moments. */
export interface WorkerStop {
  /**
   * Everything Temporal and MongoDB must hear of is told, and its stdio servers are stopped: from
   * here they may stop too, while the worker lets go of its cached workflows (seconds with
   * thousands cached: service/worker-hand-back.ts), which is local work only.
   */
  handedBack: Promise<void>;
  /** All of it: its cached workflows let go and its connections closed. */
  stopped: Promise<void>;
}

export async function startWorkerRole(deps: RoleDeps & { mongo: Mongo; temporalAddress: string }) {
  const { config } = deps;
  const clock = stepClock();
  const routesClient = await openTemporal(deps.temporalAddress, config.temporal.namespace, config.temporal.access);
  // Before anything starts: a worker that would leave workflows unserved does not start at all.
  await assertNoStrandedShards(routesClient, config.temporal.taskQueue, config.temporal.shards, deps.logger).catch(async (err: unknown) => {
    await routesClient.connection.close();
    throw err;
  });
  clock.lap('shards checked');
  const runtime = await createWorkloadRuntime(config.stdio, deps.logger, { callersEnabled: config.callers.enabled, stateDir: config.dataDir });
  clock.lap('stdio runtime');
  const isConnected = async (id: string) => (await deps.mongo.store.get(id))?.state === 'connected';
  const reconciler = startReconciler(runtime, isConnected, config.stdio.kube.reconcileIntervalMs, deps.logger);
  const sweeper = startExpirySweeper(deps.mongo, deps.logger);
  // The list index's writer slot is this worker's place (a live process holds its port): one
  // restarted there takes the marks its predecessor left for cut at once (store/list-index.ts).
  deps.mongo.store.writeListIndexAs(`${os.hostname()}:${config.port}`);
  const listRepair = startListIndexRepair(deps.mongo.store, deps.logger);
  const registryStore = new RegistryStore(deps.mongo.client.db(config.mongo.database));
  const catalog = catalogOf(config, registryStore);
  const catalogReload = startPeriodicPass({ pass: () => catalog.reload(), nothing: [], intervalMs: CATALOG_RELOAD_MS, logger: deps.logger, what: 'reloading the presets' });
  const fetch = createGuardedFetch(policyOf(config), { timeoutMs: config.connectTimeoutMs });
  // The tasks the service owns make their calls as the proxy relays them: routes from the connectors' workflows.
  const taskUpstream = new UpstreamClient({
    routes: workflowRoutes(routesClient, deps.secrets), policy: policyOf(config), logger: deps.logger,
    connectTimeoutMs: config.connectTimeoutMs, headersTimeoutMs: TASK_CALL_LIMIT_MS, pool: { maxSockets: config.upstreamMaxSockets },
  });
  clock.lap('passes');
  const { workers, connection, sdkMetricsUrl } = await createWorkers({
    address: deps.temporalAddress,
    access: config.temporal.access,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    shards: config.temporal.shards,
    maxCachedWorkflows: config.temporal.maxCachedWorkflows,
    logger: deps.logger,
    tracing: deps.tracing,
    activities: {
      store: deps.mongo.store,
      toolsets: deps.mongo.toolsets,
      changes: deps.mongo.changes,
      oauthStore: deps.mongo.oauthStore,
      secrets: deps.secrets,
      // The configured connect timeout bounds every outbound request, not a fixed default.
      fetch,
      logger: deps.logger,
      addressPolicy: policyOf(config),
      connectTimeoutMs: config.connectTimeoutMs,
      eventsRetentionDays: config.eventsRetentionDays,
      baseUrl: config.baseUrl,
      authTimeoutSeconds: config.authTimeoutSeconds,
      workloadIdentityTokenFile: config.workloadIdentityTokenFile,
      upstreamDpop: config.upstreamDpop,
      // Connectors name their preset; its credentials and env values are read here, never from history.
      presets: catalog.presets,
      metrics: deps.metrics,
      workloads: createWorkloadActivities({
        runtime, readinessTimeoutMs: config.stdio.readyTimeoutMs, secrets: deps.secrets, presets: catalog.presets, metrics: deps.metrics,
        approvalRefusal: (url) => catalog.approvalRefusal(url),
      }),
      calls: connectorCalls(workflowRoutes(routesClient, deps.secrets), taskUpstream),
      tasks: deps.mongo.tasks,
      callAudit: deps.mongo.callStore,
    },
    registry: config.registry ? {
      config: config.registry, store: registryStore, connectors: deps.mongo.store, fetch, addressPolicy: policyOf(config),
      envPresets: config.presets, onStored: () => void catalogReload.runOnce(),
    } : null,
  });
  clock.lap('workers created');
  // Only with a registry: a schedule left from an earlier configuration fails plainly (unconfiguredRegistryActivities).
  const scheduler = config.registry ? await openTemporal(deps.temporalAddress, config.temporal.namespace, config.temporal.access) : null;
  if (scheduler) await ensureRegistrySchedule(scheduler, config.temporal.taskQueue, config.registry!.syncMinutes);
  deps.metrics?.extras.push(sdkMetrics(sdkMetricsUrl));
  const running = runAll(workers);
  let stopping: WorkerStop | undefined;
  clock.lap('registry schedule');
  deps.logger.info(clock.summary(), TIMED_LINES.workerStarted);
  return {
    running,
    /** For the worker's /readyz: polling every shard's task queue. */
    isRunning: () => workers.every((worker) => worker.getState() === 'RUNNING'),
    /** Whether its stdio servers share this machine's network (and reach its loopback). */
    stdioSharesHostNetwork: runtime.sharesHostNetwork,
    /** The whole stop, once; see WorkerStop for its two moments. */
    stop: (): WorkerStop => (stopping ??= runStop()),
  };

  function runStop(): WorkerStop {
    let reached!: () => void;
    const handedBack = new Promise<void>((resolve) => (reached = resolve));
    const stopped = runStopSteps(deps.logger, TIMED_LINES.workerStopped, [
      { name: 'passes', stop: async () => {
        reconciler.stop();
        await sweeper.stop();
        await catalogReload.stop();
        await listRepair.stop();
      } },
      // Its tasks handed back and its activities given the grace time: nothing left for Temporal or MongoDB to hear.
      { name: 'tasks handed back', stop: () => {
        shutdownAll(workers);
        return untilHandedBack(workers, running);
      } },
      // No activity runs any more, so no workload is being started or stopped.
      { name: 'stdio runtime', stop: () => runtime.close() },
      { name: 'cache let go', stop: () => {
        reached();
        return running.catch(() => undefined);
      } },
      { name: 'connections', stop: async () => {
        await connection.close();
        taskUpstream.destroy();
        await routesClient.connection.close();
        await scheduler?.connection.close();
      } },
    ]).finally(reached);
    return { handedBack, stopped };
  }
}

/** Every shard's worker until all have stopped; when one fails, the others are shut down too (the process is then not ready). */
async function runAll(workers: Worker[]): Promise<void> {
  await Promise.all(workers.map((worker) => worker.run().catch((err: unknown) => {
    shutdownAll(workers);
    throw err;
  })));
}

function shutdownAll(workers: Worker[]): void {
  for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
}

/**
 * The REST API and a `close` for the connection its readiness check keeps. `onChanged` hears of
 * every connector the API has just changed (a proxy in the same process); `limits` is the per-owner
 * rate shared with the other processes (absent: this process's own). Connectors by state are counted
 * here, in the process that serves the projection (not the worker's too, which would count them twice).
 */
export function buildApi(deps: RoleDeps & {
  mongo: Mongo; temporal: Client; temporalAddress: string; onChanged?: (connectorId: string) => void; onToolsetChanged?: (toolsetId: string) => void; limits?: SharedLimits;
}) {
  if (deps.metrics) registerConnectorStates(deps.metrics, () => deps.mongo.store.countByState());
  if (deps.metrics) registerTaskStates(deps.metrics, () => deps.mongo.tasks.census());
  const temporalReady = temporalCheck(deps.temporalAddress, deps.config.temporal.access);
  const { config } = deps;
  const commands = new ConnectorCommands({
    temporal: deps.temporal,
    taskQueue: config.temporal.taskQueue,
    shards: config.temporal.shards,
    secrets: deps.secrets,
    onChanged: deps.onChanged,
    settings: {
      historyLimit: config.historyLimit,
      authTimeoutSeconds: config.authTimeoutSeconds,
      refreshSkewSeconds: config.refreshSkewSeconds,
      minRefreshIntervalSeconds: config.minRefreshIntervalSeconds,
      connectTimeoutMs: config.connectTimeoutMs,
      stdioReadyTimeoutMs: config.stdio.readyTimeoutMs,
    },
  });
  const api = createApi({
    commands,
    store: deps.mongo.store,
    oauthStore: deps.mongo.oauthStore,
    callStore: deps.mongo.callStore,
    tasks: deps.mongo.tasks,
    temporal: deps.temporal,
    secrets: deps.secrets,
    allowedRedirectOrigins: config.allowedRedirectOrigins,
    workloadIdentity: config.workloadIdentityTokenFile !== null,
    presets: config.presets,
    catalog: catalogOf(config, new RegistryStore(deps.mongo.client.db(config.mongo.database))),
    stdioRuntime: () => resolvedRuntimeKind(config.stdio),
    addressPolicy: policyOf(config),
    baseUrl: config.baseUrl,
    bodyLimit: config.bodyLimit,
    readiness: { temporal: temporalReady, database: () => deps.mongo.store.ping() },
    logger: deps.logger,
    authenticator: authenticatorOf(config),
    issuer: config.callers.jwt?.issuer ?? null,
    scopes: config.callers.jwt?.scopes ?? [],
    maxConnectorsPerOwner: config.callers.maxConnectorsPerOwner,
    maxToolsetsPerOwner: config.callers.maxToolsetsPerOwner,
    rateLimit: rateLimitOf(config, 'api', deps.limits),
    toolsets: deps.mongo.toolsets,
    onToolsetChanged: (id) => {
      deps.onToolsetChanged?.(id);
      // Proxies in other processes hear of it through the feed; one that misses it reads the toolset again within a second.
      deps.mongo.changes.publish('toolset', id).catch((err: unknown) => deps.logger.warn({ err, toolsetId: id }, 'could not publish a toolset change'));
    },
    console: config.console,
    allowedOrigins: config.callers.allowedOrigins,
  });
  return { api, close: temporalReady.close };
}

/** How often a worker rereads the presets (another process's sync or approval reaches it within this). */
const CATALOG_RELOAD_MS = 15_000;

function catalogOf(config: Config, store: RegistryStore): LiveCatalog {
  if (!config.registry) return new LiveCatalog(config.presets, null);
  return new LiveCatalog(config.presets, store, new Map(config.registry.servers.map((s) => [s.name, s.overlay])));
}
