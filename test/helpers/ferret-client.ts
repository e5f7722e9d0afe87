// FerretDB (the embedded database) under a temporary directory, and a driver client to it, for a
// test file's store tests; `close` stops both and removes the directory.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../platform/logger';
import { startFerretDb } from '../../stack/servers/ferretdb-server';

export async function startFerretClient(name: string): Promise<{ client: MongoClient; close(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), `${name}-`));
  const server = await startFerretDb({ dataDir, port: 0, log: createLogger(name, process.env.LOG_LEVEL ?? 'error') });
  const client = new MongoClient(server.uri);
  return {
    client,
    async close() {
      await client.close();
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
