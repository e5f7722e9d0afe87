// The registry's three roles in the embedded stack's process, on the servers the stack started.
// This module and what it imports (the Temporal SDK, the MongoDB driver, Koa, the API and the
// proxy: about a second of loading) are loaded while those servers start (embedded-stack.ts).
import type { Client } from '@temporalio/client';
import type { Config } from '../config/config';
import type { Logger } from '../platform/logger';
import type { StepClock } from '../platform/step-clock';
import type { StopStep } from '../platform/stop-steps';
import type { ConnectorStore } from '../store/connector-store';
import { closeServer, createHttpServer, listen } from '../service/http-server';
import { createProcessMetrics, serveMetrics } from '../service/metrics';
import { authenticatorOf, buildApi, buildProxy, originPolicyOf, startWorkerRole } from '../service/roles';
import { encryptionKey, openMongo, openTemporal, secretBox } from '../service/services';
import { startTracing } from '../service/tracing';
import { toolsetSourceOf } from '../service/proxy-role';
import { logReach } from './servers/reach-line';
import { sizeWorkflowThreadsYoungGeneration } from './young-generation';

/** A stop step that only frees this process's memory: skipped when the process exits anyway. */
export type StackStopStep = StopStep & { onlyFreesMemory?: true };

export interface RolesInput {
  config: Config;
  logger: Logger;
  temporalAddress: string;
  mongoUri: string;
  /** The servers this stack started (null: external), for the line saying who reaches them. */
  started: { temporal: string | null; mongodb: string | null };
  /** Where each part puts its stop, last started first stopped. */
  stops: StackStopStep[];
  clock: StepClock;
}

export interface Roles {
  port: number;
  metricsPort?: number;
  temporal: Client;
  store: ConnectorStore;
}

export async function startRoles({ config, logger, temporalAddress, mongoUri, started, stops, clock }: RolesInput): Promise<Roles> {
  const secrets = secretBox(encryptionKey(config, logger));
  const tracing = await startTracing(config.tracing, 'connector-registry', logger);
  if (tracing) stops.push({ name: 'tracing', stop: () => tracing.flush() });
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
  sizeWorkflowThreadsYoungGeneration();
  const worker = await startWorkerRole({ config, logger, secrets, mongo, temporalAddress, metrics, tracing });
  // The servers stop once the worker has handed back its work, while it lets go of its cached
  // workflows (seconds with thousands cached: the refreshes due meanwhile wait for the restart);
  // the last step waits for that.
  stops.push({ name: 'worker', stop: () => worker.stop().handedBack });
  stops.unshift({ name: 'worker cache let go', stop: () => worker.stop().stopped, onlyFreesMemory: true });
  clock.lap('worker');
  logReach(logger, started, worker.stdioSharesHostNetwork);
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
  return { port, metricsPort: metricsServing.port, temporal, store: mongo.store };
}
