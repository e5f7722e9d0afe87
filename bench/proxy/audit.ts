// BENCH_AUDIT=1: the bench proxy runs with the per-call audit on, writing through its queue into
// a real FerretDB started here as the tests start it (its own data dir, a free port). Run the
// bench with and without it: each run has its own nginx baseline. After the load, the calls the
// database holds are counted against those sent, so that drops show, and FerretDB's CPU per call.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../platform/logger';
import { startFerretDb } from '../../stack/servers/ferretdb-server';

export const AUDIT_ON = process.env.BENCH_AUDIT === '1';
/** The database the bench proxy writes the audit into (MONGODB_DATABASE of its child). */
export const AUDIT_DATABASE = 'bench';

export interface AuditDatabase {
  uri: string;
  /** FerretDB's process, for its CPU time. */
  pid: number;
  /** Calls written so far. */
  written(): Promise<number>;
  stop(): Promise<void>;
}

export async function startAuditDatabase(): Promise<AuditDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-audit-'));
  const ferret = await startFerretDb({ dataDir, log: createLogger('bench-ferretdb', 'warn') });
  const client = await MongoClient.connect(ferret.uri);
  return {
    uri: ferret.uri,
    pid: ferret.pid,
    // After the queue's last interval, so that what waits in it is counted too.
    async written() {
      await new Promise((r) => setTimeout(r, 2_000));
      const batches = await client.db(AUDIT_DATABASE).collection('connector_calls').find({}).toArray();
      return batches.reduce((sum, batch) => sum + (typeof batch.calls === 'string' ? (JSON.parse(batch.calls) as unknown[]).length : 0), 0);
    },
    async stop() {
      await client.close();
      await ferret.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
