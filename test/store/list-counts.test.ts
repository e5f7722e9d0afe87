// The list counts' group writes against the embedded database (FerretDB): the marks and settles
// of several views that arrive together go as one update command, and where a repair has taken
// the marks of one of them, the command cannot say which statement matched nothing, so every
// settle in it is in doubt: each of its views says it is not exact, none is exact and wrong.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { createLogger } from '../../platform/logger';
import { startFerretDb, type FerretDbServer } from '../../stack/servers/ferretdb-server';
import { ListCounts, isExact, writerKey } from '../../store/list-counts';
import { watchedDatabase } from '../helpers/watched-database';

let dataDir: string;
let server: FerretDbServer;

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'list-counts-'));
  server = await startFerretDb({ dataDir, port: 0, log: createLogger('test-list-counts', process.env.LOG_LEVEL ?? 'error') });
});

test.after.always(async () => {
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const WRITER = 'worker-a:8080';

/** Counts on a client that records the commands sent to `database`. */
async function watchedCounts(t: ExecutionContext, database: string) {
  const { db, commands } = await watchedDatabase(t, server.uri, database);
  return { counts: new ListCounts(db), commands };
}

test.serial('the marks of four views that arrive together are one update, and so are their settles', async (t) => {
  const { counts, commands } = await watchedCounts(t, 'counts_group');
  const views = ['a|', 's|created|', 'o|alice|', 'os|alice|created|'];
  await Promise.all(views.map((view) => counts.mark(view, WRITER)));
  t.deepEqual(commands.splice(0), ['update']);
  t.deepEqual(await Promise.all(views.map((view) => counts.settle(view, WRITER, 1))), [true, true, true, true]);
  t.deepEqual(commands.splice(0), ['update']);
  for (const view of views) t.deepEqual(await counts.read(view), { n: 1, exact: true });
});

test.serial('a command with a settle whose marks a repair took leaves every view it settled in doubt, none exact and wrong', async (t) => {
  const { counts, commands } = await watchedCounts(t, 'counts_doubt');
  const [taken, kept] = ['s|created|', 'a|'];
  await Promise.all([counts.mark(taken, WRITER), counts.mark(kept, WRITER)]);
  // A repair in another process recounted `taken` without this change's key and cleared its marks.
  await counts.docs.updateOne({ _id: taken }, { $set: { n: 0, p: {} }, $inc: { v: 1 } });
  commands.length = 0;
  // Both settles and a new mark of `kept` (another change of this process) in one command.
  const [settledTaken, settledKept] = await Promise.all([counts.settle(taken, WRITER, 1), counts.settle(kept, WRITER, 1), counts.mark(kept, WRITER)]);
  t.deepEqual([settledTaken, settledKept], [false, false], 'the command says one statement matched nothing, not which');
  t.is(commands[0], 'update');
  for (const view of [taken, kept]) {
    const doc = await counts.docs.findOne({ _id: view });
    t.false(isExact(doc), `${view} says it is not exact`);
    t.true(doc?.dirty, `${view} is marked for the repair`);
  }
  const keptDoc = await counts.docs.findOne({ _id: kept });
  t.true((keptDoc?.p?.[writerKey(WRITER)] ?? 0) >= 1, 'the new mark is there, once or twice, never lost');
});

test.serial('the first marks of a view made by two processes at once both land', async (t) => {
  const first = await watchedCounts(t, 'counts_race');
  const second = await watchedCounts(t, 'counts_race');
  const views = ['a|', 's|created|'];
  await Promise.all([...views.map((v) => first.counts.mark(v, 'one')), ...views.map((v) => second.counts.mark(v, 'two'))]);
  for (const view of views) {
    const doc = await first.counts.docs.findOne({ _id: view });
    t.deepEqual(doc?.p, { [writerKey('one')]: 1, [writerKey('two')]: 1 }, `${view}: both writers' marks`);
  }
});
