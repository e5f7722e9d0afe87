// BENCH_AUDIT=1: a second proxy with the per-call audit on, writing through its queue into a real
// FerretDB started here as the tests start it (its own data dir, a free port), measured as the
// target "audit" beside "proxy" (audit off) in the same interleaved rounds. After the load, the
// calls the database holds are counted against those sent, so that drops show.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../core/logger';
import { startFerretDb } from '../../stack/servers/ferretdb-server';
import { startChild, type Child } from './child';

export const AUDIT_ON = process.env.BENCH_AUDIT === '1';
export const AUDIT_DATABASE = 'bench';

export interface AuditedProxy {
  proxy: Child;
  /** FerretDB's process, for its CPU time. */
  databasePid: number;
  /** Calls written so far. */
  written(): Promise<number>;
  stop(): Promise<void>;
}

export async function startAuditedProxy(routes: object, nodeArgs: string[]): Promise<AuditedProxy> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-audit-'));
  const ferret = await startFerretDb({ dataDir, log: createLogger('bench-ferretdb', 'warn') });
  const proxy = await startChild('./proxy-server.ts', { BENCH_ROUTES: JSON.stringify(routes), BENCH_AUDIT_MONGO: ferret.uri }, nodeArgs);
  const client = await MongoClient.connect(ferret.uri);
  return {
    proxy,
    databasePid: ferret.pid,
    // After the queue's last interval, so that what waits in it is counted too.
    async written() {
      await new Promise((r) => setTimeout(r, 2_000));
      const batches = await client.db(AUDIT_DATABASE).collection('connector_calls').find({}).toArray();
      return batches.reduce((sum, batch) => sum + (typeof batch.calls === 'string' ? (JSON.parse(batch.calls) as unknown[]).length : 0), 0);
    },
    async stop() {
      await proxy.stop();
      await client.close();
      await ferret.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
