// A change of the list index cut at every one of its writes in turn (the process dies there:
// that write and everything after it never happen), against the embedded database (FerretDB).
// After each cut, every view's list answers a count that is either exact and right or says it
// is not exact; one repair later (by the restarted worker, in the same slot, or by another
// writer, which waits one pass before taking marks it cannot tell from a change under way)
// every view is exact and right, and stays so once the cut write is retried.
import type { ConnectorRecord } from '../../contract/connector-record';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { MongoClient, type Collection, type Db } from 'mongodb';
import { createLogger } from '../../platform/logger';
import { startFerretDb, type FerretDbServer } from '../../stack/servers/ferretdb-server';
import { ConnectorStore } from '../../store/connector-store';

let dataDir: string;
let server: FerretDbServer;
let client: MongoClient;

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'list-index-cuts-'));
  server = await startFerretDb({ dataDir, port: 0, log: createLogger('test-list-cuts', process.env.LOG_LEVEL ?? 'error') });
  client = new MongoClient(server.uri);
});

test.after.always(async () => {
  await client?.close();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const WRITES = new Set(['insertOne', 'insertMany', 'updateOne', 'updateMany', 'deleteOne', 'deleteMany', 'findOneAndUpdate', 'replaceOne', 'bulkWrite']);

/**
 * A view of `db` whose process dies at its `cutAt`-th write: that write and every later call fail.
 * `landed()`: the calls it had sent before have all been answered (as a database answers the
 * requests of a process killed after sending them).
 */
function dyingAt(db: Db, cutAt: number): { db: Db; landed: () => Promise<unknown> } {
  let writes = 0;
  const sent: Promise<unknown>[] = [];
  const dead = () => writes >= cutAt;
  const wrap = (collection: Collection<any>) => new Proxy(collection, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (WRITES.has(String(name))) writes += 1;
        if (dead()) throw new Error(`cut at write ${cutAt}`);
        const result = value.apply(target, args);
        if (result instanceof Promise) sent.push(result.catch(() => undefined));
        return result;
      };
    },
  });
  return { db: { collection: (name: string) => wrap(db.collection(name)) } as unknown as Db, landed: () => Promise.all(sent) };
}

function record(n: number, state: ConnectorRecord['state'], owner: string | null, version: number): ConnectorRecord {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  return {
    id: `c${n}`, url: 'http://127.0.0.1:1/mcp', state, metadata: {}, auth_request: null, disconnect_reason: null,
    disconnect_permanent: null, preset: null, created_at: at, updated_at: at, created_by: owner, protocol_version: null, version,
  };
}

const VIEWS = [{}, { state: 'created' }, { state: 'connecting' }, { createdBy: 'alice' }, { createdBy: 'alice', state: 'created' }, { createdBy: 'alice', state: 'connecting' }];

/** Every view paged through: its items, and its count with whether it says it is exact. */
async function views(store: ConnectorStore) {
  const out = [];
  for (const view of VIEWS) {
    const first = await store.list({ ...view, limit: 100 });
    out.push({ view, ids: first.items.map((r) => r.id), total: first.total_count, exact: first.total_count_exact });
  }
  return out;
}

/** Each view's items are what the records say, and an exact count is their number. */
async function checkHonest(t: ExecutionContext, store: ConnectorStore, what: string, mustBeExact: boolean) {
  for (const { view, ids, total, exact } of await views(store)) {
    if (exact) t.is(total, ids.length, `${what}: ${JSON.stringify(view)} says ${total} exactly, lists ${ids.length}`);
    else t.false(mustBeExact, `${what}: ${JSON.stringify(view)} is not exact`);
  }
}

const changes: [string, (store: ConnectorStore) => Promise<void>][] = [
  ['a create', (store) => store.project(record(3, 'created', 'alice', 1))],
  ['a transition', (store) => store.project(record(1, 'connecting', 'alice', 2))],
  // As the workflow writes them (workflows/projection.ts): told the version before, nothing read.
  ['a create told it is the first', (store) => store.project(record(3, 'created', 'alice', 1), null)],
  ['a transition told the version before it', (store) => store.project(record(1, 'connecting', 'alice', 2), { version: 1, state: 'created' })],
  ['a removal', (store) => store.remove('c2', new Date())],
];

for (const [name, change] of changes) {
  for (const repairer of ['the restarted worker in the same slot', 'a worker in another slot']) {
    test(`${name} cut at each of its writes: counts are exact or say they are not, and exact after ${repairer}'s repair`, async (t) => {
      for (let cutAt = 1; ; cutAt += 1) {
        const db = client.db(`cuts_${changes.findIndex(([n]) => n === name)}_${repairer.length}_${cutAt}`);
        const setup = new ConnectorStore(db, 'worker-a');
        await setup.ensureIndexes();
        await setup.project(record(1, 'created', 'alice', 1));
        await setup.project(record(2, 'created', 'alice', 1));
        const dying = dyingAt(db, cutAt);
        const cutStore = new ConnectorStore(dying.db, 'worker-a');
        const failed = await change(cutStore).then(() => false, () => true);
        await dying.landed();
        if (!failed) {
          t.true(cutAt > 3, 'the change was cut at least at its first writes');
          await checkHonest(t, new ConnectorStore(db), `${name} not cut`, true);
          return;
        }
        const restarted = new ConnectorStore(db, repairer.includes('same') ? 'worker-a' : 'worker-b');
        await checkHonest(t, restarted, `${name} cut at write ${cutAt}`, false);
        let result = await restarted.repairListIndex();
        if (!repairer.includes('same')) {
          if (result.unsettled > 0) result = await restarted.repairListIndex();
        }
        t.is(result.unsettled, 0, `${name} cut at write ${cutAt}: settled by the repair`);
        await checkHonest(t, restarted, `${name} cut at write ${cutAt}, repaired`, true);
        await change(restarted); // the activity, retried
        await checkHonest(t, restarted, `${name} cut at write ${cutAt}, retried`, true);
        const expected = name.startsWith('a create') ? ['c1', 'c2', 'c3'] : name === 'a removal' ? ['c1'] : ['c1', 'c2'];
        t.deepEqual((await restarted.list({ limit: 100, createdBy: 'alice' })).items.map((r) => r.id), expected);
        if (name.startsWith('a transition')) t.deepEqual((await restarted.list({ limit: 100, state: 'connecting' })).items.map((r) => r.id), ['c1']);
      }
    });
  }
}

test('a repair that takes for cut a change still under way in another process leaves the count in doubt, never wrong, and the next pass settles it', async (t) => {
  const db = client.db('cuts_under_way');
  const a = new ConnectorStore(db, 'worker-a');
  await a.ensureIndexes();
  await a.project(record(1, 'created', 'alice', 1));
  // A slow change in worker A: its marks are written, its record and keys wait.
  let resume!: () => void;
  const paused = new Promise<void>((resolve) => (resume = resolve));
  const slowDb = { collection: (name: string) => {
    const collection = db.collection(name);
    if (name !== 'connectors') return collection;
    return new Proxy(collection, { get: (target, prop, receiver) => {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== 'insertOne' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => { await paused; return value.apply(target, args); };
    } });
  } } as unknown as Db;
  const slow = new ConnectorStore(slowDb, 'worker-a').project(record(2, 'created', 'alice', 1));
  const b = new ConnectorStore(db, 'worker-b');
  // All four of its views: their marks are one command, but FerretDB applies its statements one
  // by one, and a repair that read a view before its mark landed would recount it instead.
  await eventuallyNotExact(t, b, [{}, { state: 'created' }, { createdBy: 'alice' }, { createdBy: 'alice', state: 'created' }]);
  t.like(await b.repairListIndex(), { unsettled: 4 }, 'marks of another writer, seen once: perhaps a change under way');
  t.like(await b.repairListIndex(), { unsettled: 0, recounted: 4 }, 'seen again unchanged: taken for cut');
  resume();
  await slow;
  const after = await b.list({ limit: 10, createdBy: 'alice' });
  t.false(after.total_count_exact, 'the change settled into a count the repair had made without it: in doubt');
  t.like(await b.repairListIndex(), { unsettled: 0 });
  await checkHonest(t, b, 'after the next pass', true);
  t.like(await b.list({ limit: 10, createdBy: 'alice' }), { total_count: 2, total_count_exact: true });
});

async function eventuallyNotExact(t: ExecutionContext, store: ConnectorStore, views: typeof VIEWS): Promise<void> {
  for (let i = 0; i < 1200; i += 1) { // a minute at most
    const exact = await Promise.all(views.map(async (view) => (await store.list({ ...view, limit: 1 })).total_count_exact));
    if (!exact.includes(true)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  t.fail('the change under way never marked its views');
}
