// FerretDB v1 (MongoDB wire protocol) on its SQLite backend in the data dir. Its debug HTTP
// listener (metrics, pprof) is turned off: on its fixed default port it would stop a second
// instance from starting. Its state file (telemetry UUID) goes to the data dir, not the cwd.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from '../../platform/logger';
import { resolveBinary } from '../toolchain/binaries';
import { startChildServer } from './child-server';
import { portOrFree, retryOnPortConflict } from '../../service/free-port';

export interface FerretDbOptions {
  dataDir: string;
  /** 0 or absent: a free port. */
  port?: number;
  log: Logger;
  /** Path of the ferretdb binary; default: resolved by the toolchain. */
  binary?: string;
  readyTimeoutMs?: number;
  /** Called once its process runs (before it answers); again if a port conflict starts another. */
  onSpawned?: () => void;
}

export interface FerretDbServer {
  /** A mongodb:// URI for the driver. */
  uri: string;
  pid: number;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const PROBE_TIMEOUT_MS = 2_000;

export async function startFerretDb(options: FerretDbOptions): Promise<FerretDbServer> {
  const dataDir = resolve(options.dataDir);
  const sqliteDir = join(dataDir, 'ferretdb');
  const stateDir = join(dataDir, 'ferretdb-state');
  await mkdir(sqliteDir, { recursive: true });
  await mkdir(stateDir, { recursive: true });
  const binary = options.binary ?? (await resolveBinary('ferretdb', { log: options.log }));
  // FerretDB wants an existing directory given as a file: URL that ends with '/'.
  const sqliteUrl = pathToFileURL(`${sqliteDir}/`).href;
  const started = Date.now();
  const { child, uri } = await retryOnPortConflict(async () => {
    const port = await portOrFree(options.port);
    const uri = `mongodb://${HOST}:${port}/`;
    const child = await startChildServer({
      name: 'ferretdb',
      binary,
      args: [
        '--handler=sqlite',
        `--sqlite-url=${sqliteUrl}`,
        `--listen-addr=${HOST}:${port}`,
        `--state-dir=${stateDir}`,
        '--debug-addr=-',
        '--telemetry=disable',
        '--log-level=warn',
      ],
      pidFile: join(dataDir, 'ferretdb.pid'),
      identityArgs: [`--sqlite-url=${sqliteUrl}`],
      probe: () => ping(uri),
      port,
      log: options.log,
      readyTimeoutMs: options.readyTimeoutMs,
      onSpawned: options.onSpawned,
    });
    return { child, uri };
  });
  options.log.info({ uri, startMs: Date.now() - started }, `FerretDB at ${uri}`);
  return { uri, pid: child.pid, stop: child.stop };
}

async function ping(uri: string): Promise<void> {
  // Imported here: the stack loads its own code while this server starts (stack/embedded-stack.ts).
  const { MongoClient } = await import('mongodb');
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: PROBE_TIMEOUT_MS, connectTimeoutMS: PROBE_TIMEOUT_MS });
  try {
    await client.db('admin').command({ ping: 1 });
  } finally {
    await client.close();
  }
}
