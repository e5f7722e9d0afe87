// One FerretDB (the embedded database) for a test file, started before its tests and stopped after
// them; each `connect()` is a connection of its own, as another process would have.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../platform/logger';
import { startFerretDb, type FerretDbServer } from '../../stack/servers/ferretdb-server';

export function databasePerFile(name: string): { connect(): MongoClient } {
  let dataDir: string;
  let server: FerretDbServer;
  const clients: MongoClient[] = [];
  test.before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), `${name}-`));
    server = await startFerretDb({ dataDir, port: 0, log: createLogger(`test-${name}`, process.env.LOG_LEVEL ?? 'error') });
  });
  test.after.always(async () => {
    for (const client of clients) await client.close();
    await server?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  return {
    connect() {
      const client = new MongoClient(server.uri);
      clients.push(client);
      return client;
    },
  };
}
