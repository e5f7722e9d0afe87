// Call audit listing benchmark (npm run bench:call-audit): BENCH_CALLS calls (50,000) for two
// connectors written through CallAuditStore into a real FerretDB in batches of BENCH_BATCH (50),
// then a page of 50 listed the store's way (an `_id` lookup per batch, from the newest back) and,
// as the baseline in the same run, the way a range of `_id` would list it (one find over the
// range, newest first), with FerretDB's explain of that range.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import type { CallEntry } from '../contract/call-record';
import { createLogger } from '../platform/logger';
import { startFerretDb } from '../stack/servers/ferretdb-server';
import { CallAuditStore } from '../store/call-audit-store';

const CALLS = Number(process.env.BENCH_CALLS ?? 50_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 50);
const CONNECTORS = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222'];

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-call-audit-'));
  const ferret = await startFerretDb({ dataDir, log: createLogger('bench-ferretdb', 'warn') });
  const client = await MongoClient.connect(ferret.uri);
  try {
    const db = client.db('bench');
    const store = new CallAuditStore(db, 30);
    await store.ensureIndexes();
    const started = performance.now();
    const base = Date.now() - CALLS * 10;
    for (let i = 0; i < CALLS; i += BATCH) {
      await store.insert(Array.from({ length: Math.min(BATCH, CALLS - i) }, (_, k) => call(i + k, base)));
    }
    const writeMs = performance.now() - started;
    console.log(`${CALLS} calls written in batches of ${BATCH}: ${writeMs.toFixed(0)} ms (${((writeMs * 1000) / CALLS).toFixed(0)} µs/call)`);

    const [connector] = CONNECTORS;
    const chained = await timed(() => store.list(connector!, { limit: 50 }));
    const first = await store.list(connector!, { limit: 50 });
    const second = await timed(() => store.list(connector!, { limit: 50, pageToken: first.next_page_token! }));
    const filtered = await timed(() => store.list(connector!, { limit: 50, status: '5xx' }));
    const range = { _id: { $gte: `${connector}:`, $lt: `${connector};` } };
    const calls = db.collection('connector_calls');
    const scan = await timed(() => calls.find(range as never).sort({ _id: -1 }).limit(51).toArray());
    const plan = await calls.find(range as never).sort({ _id: -1 }).limit(51).explain() as { filterPushdown?: boolean };
    console.log(`first page, chained batches: ${chained.toFixed(1)} ms; next page ${second.toFixed(1)} ms; status=5xx ${filtered.toFixed(1)} ms`);
    console.log(`first page, one range of _id (baseline): ${scan.toFixed(1)} ms (filterPushdown ${plan.filterPushdown})`);
    console.log(`range / chained: ${(scan / chained).toFixed(1)}x`);
  } finally {
    await client.close();
    await ferret.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function call(n: number, base: number): CallEntry {
  return {
    at: new Date(base + n * 10), connectorId: CONNECTORS[n % 2]!, caller: 'alice', sessionId: 'session', httpMethod: 'POST',
    rpcMethod: n % 7 ? 'tools/call' : 'tools/list', rpcName: 'echo', body: 'message', status: n % 11 ? 200 : 500,
    rpcErrorCode: null, durationMs: 1.5, requestBytes: 100, responseBytes: 200,
  };
}

/** Mean of 5 runs after one warm-up, in ms. */
async function timed(run: () => Promise<unknown>): Promise<number> {
  await run();
  const started = performance.now();
  for (let i = 0; i < 5; i++) await run();
  return (performance.now() - started) / 5;
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
