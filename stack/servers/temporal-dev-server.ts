// The Temporal dev server (`temporal server start-dev`) on SQLite in the data dir. WAL with
// synchronous=normal survives a crash of the process and is several times faster than the default
// journal (see shared/toolchain.md). One task-queue partition removes the dev server's stalls on
// bursts of new workflows.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from '../../platform/logger';
import { resolveBinary } from '../toolchain/binaries';
import { startChildServer } from './child-server';
import { portOrFree, retryOnPortConflict } from '../../service/free-port';

export interface TemporalDevServerOptions {
  dataDir: string;
  /** gRPC port; 0 or absent: a free port. */
  port?: number;
  /** Web UI port; 0 or absent: a free port. Ignored when headless. */
  uiPort?: number;
  /** No Web UI. */
  headless?: boolean;
  /** Namespaces to create at start; "default" always exists. */
  namespaces?: string[];
  log: Logger;
  /** Path of the temporal CLI; default: resolved by the toolchain. */
  binary?: string;
  readyTimeoutMs?: number;
  /** Called once its process runs (before it answers); again if a port conflict starts another. */
  onSpawned?: () => void;
}

export interface TemporalDevServer {
  /** host:port for Connection.connect. */
  address: string;
  /** The Web UI, absent when headless. */
  uiUrl?: string;
  pid: number;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const PROBE_TIMEOUT_MS = 2_000;

export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const binary = options.binary ?? (await resolveBinary('temporal', { log: options.log }));
  const dbFile = join(dataDir, 'temporal.db');
  const namespaces = ['default', ...(options.namespaces ?? []).filter((ns) => ns !== 'default')];
  const started = Date.now();
  const { child, port, uiPort } = await retryOnPortConflict(async () => {
    const port = await portOrFree(options.port);
    const uiPort = options.headless ? undefined : await portOrFree(options.uiPort);
    const child = await startChildServer({
      name: 'temporal',
      binary,
      args: devServerArgs({ dbFile, port, uiPort, namespaces }),
      pidFile: join(dataDir, 'temporal.pid'),
      identityArgs: ['server', 'start-dev', dbFile],
      probe: () => probeNamespaces(`${HOST}:${port}`, namespaces),
      port,
      log: options.log,
      readyTimeoutMs: options.readyTimeoutMs,
      onSpawned: options.onSpawned,
    });
    return { child, port, uiPort };
  });
  const address = `${HOST}:${port}`;
  const uiUrl = uiPort === undefined ? undefined : `http://${HOST}:${uiPort}`;
  options.log.info({ address, uiUrl, startMs: Date.now() - started }, `Temporal dev server at ${address}${uiUrl ? `, Web UI at ${uiUrl}` : ''}`);
  return { address, uiUrl, pid: child.pid, stop: child.stop };
}

function devServerArgs(o: { dbFile: string; port: number; uiPort?: number; namespaces: string[] }): string[] {
  return [
    'server', 'start-dev',
    '--db-filename', o.dbFile,
    '--sqlite-pragma', 'journal_mode=wal',
    '--sqlite-pragma', 'synchronous=normal',
    '--ip', HOST,
    '--port', String(o.port),
    ...(o.uiPort === undefined ? ['--headless'] : ['--ui-port', String(o.uiPort)]),
    '--log-level', 'warn',
    '--dynamic-config-value', 'matching.numTaskqueueReadPartitions=1',
    '--dynamic-config-value', 'matching.numTaskqueueWritePartitions=1',
    '--dynamic-config-value', 'system.enableActivityEagerExecution=true',
    ...o.namespaces.flatMap((ns) => ['--namespace', ns]),
  ];
}

// Answering gRPC is not enough: workers and clients fail until the namespaces are registered.
async function probeNamespaces(address: string, namespaces: string[]): Promise<void> {
  // Imported here: the stack loads its own code while this server starts (stack/embedded-stack.ts).
  const { Connection } = await import('@temporalio/client');
  const connection = await Connection.connect({ address, connectTimeout: PROBE_TIMEOUT_MS });
  try {
    for (const namespace of namespaces) {
      await connection.workflowService.describeNamespace({ namespace });
    }
  } finally {
    await connection.close();
  }
}
