// The servers run as children of whatever process started them. These tests start them from a
// separate process (fixtures/start-servers.ts) and kill that process, as a crash or `kill -9` would.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../platform/logger';
import { startFerretDb } from '../../stack/servers/ferretdb-server';
import { startTemporalDevServer } from '../../stack/servers/temporal-dev-server';
import { waitUntilGone } from './helpers/processes';

const FIXTURE = fileURLToPath(new URL('./fixtures/start-servers.ts', import.meta.url));
const log = createLogger('test-parent-death', process.env.LOG_LEVEL ?? 'error');
const dirs: string[] = [];

interface Started {
  fixture: ChildProcess;
  temporalPid: number;
  ferretdbPid: number;
  /** The fixture's next line of output that holds `key` (its log's lines go to the same output). */
  next<T>(key: string): Promise<T>;
}

async function startFixture(dataDir: string, marker: string, detached: boolean): Promise<Started> {
  const fixture = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dataDir, marker], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached,
  });
  const lines = createInterface({ input: fixture.stdout! })[Symbol.asyncIterator]();
  // 'close', not 'exit': it comes after the last of its output has been read.
  const exited = new Promise<never>((_, reject) => fixture.once('close', (code) => reject(new Error(`fixture exited with ${code}`))));
  exited.catch(() => undefined);
  const next = async <T>(key: string): Promise<T> => {
    for (;;) {
      const line = await Promise.race([lines.next(), exited]);
      if (line.done) throw new Error(`the fixture's output ended before a line with ${key}`);
      const parsed = JSON.parse(line.value) as Record<string, unknown>;
      if (key in parsed) return parsed as T;
    }
  };
  const pids = await next<{ temporalPid: number; ferretdbPid: number }>('temporalPid');
  return { fixture, ...pids, next };
}

async function newDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'parent-death-'));
  dirs.push(dir);
  return dir;
}

test.after.always(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

test('the servers stop when the process that started them is SIGKILLed', async (t) => {
  const started = await startFixture(await newDataDir(), 'parent-only', false);
  started.fixture.kill('SIGKILL');
  t.true(await waitUntilGone(started.temporalPid, 30_000), 'temporal stopped');
  t.true(await waitUntilGone(started.ferretdbPid, 30_000), 'ferretdb stopped');
});

// Ctrl-C in a terminal, systemd's stop and many supervisors signal the whole process group: the
// servers must still answer while the process that started them shuts its worker down.
test('a SIGTERM to the whole process group leaves the servers to the process that started them: they answer until it stops them', async (t) => {
  const started = await startFixture(await newDataDir(), 'group-signal', true);
  const answered = started.next('temporal');
  process.kill(-started.fixture.pid!, 'SIGTERM');
  t.deepEqual(await answered, { temporal: true, ferretdb: true });
  t.true(await waitUntilGone(started.temporalPid, 30_000), 'temporal stopped');
  t.true(await waitUntilGone(started.ferretdbPid, 30_000), 'ferretdb stopped');
});

test('after a SIGKILL of the whole process tree, the servers start again on the same data dir with their data', async (t) => {
  const dataDir = await newDataDir();
  const started = await startFixture(dataDir, 'whole-tree', true);
  process.kill(-started.fixture.pid!, 'SIGKILL');
  t.true(await waitUntilGone(started.temporalPid, 10_000));
  t.true(await waitUntilGone(started.ferretdbPid, 10_000));

  const [temporal, ferretdb] = await Promise.all([
    startTemporalDevServer({ dataDir, headless: true, log }),
    startFerretDb({ dataDir, log }),
  ]);
  try {
    const mongo = new MongoClient(ferretdb.uri);
    const doc = await mongo.db('fixture').collection('marks').findOne({ marker: 'whole-tree' });
    await mongo.close();
    t.truthy(doc);
    const connection = await Connection.connect({ address: temporal.address });
    const described = await new Client({ connection }).workflow.getHandle('whole-tree').describe();
    await connection.close();
    t.is(described.status.name, 'RUNNING');
  } finally {
    await Promise.all([temporal.stop(), ferretdb.stop()]);
  }
});
