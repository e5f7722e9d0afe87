import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../platform/logger';
import { startFerretDb } from '../../stack/servers/ferretdb-server';
import { onFreePorts } from '../../stack/preferred-port';
import { isRunning, waitUntilGone } from './helpers/processes';

const log = createLogger('test-ferretdb', process.env.LOG_LEVEL ?? 'error');
let dataDir: string;

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'ferretdb-server-'));
});

test.after.always(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function withMongo<T>(uri: string, fn: (client: MongoClient) => Promise<T>): Promise<T> {
  const client = new MongoClient(uri);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

test.serial('starts on a free port, answers, and keeps its data across a restart', async (t) => {
  const first = await startFerretDb({ dataDir, port: 0, log });
  t.regex(first.uri, /^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
  t.true(existsSync(join(dataDir, 'ferretdb.pid')));
  await withMongo(first.uri, (c) => c.db('app').collection('things').insertOne({ _id: 'restart' as never, n: 1 }));
  await first.stop();
  t.false(isRunning(first.pid));
  t.false(existsSync(join(dataDir, 'ferretdb.pid')), 'stop removes the pid file');

  const second = await startFerretDb({ dataDir, log });
  try {
    const doc = await withMongo(second.uri, (c) => c.db('app').collection('things').findOne({ _id: 'restart' as never }));
    t.is(doc?.n, 1);
  } finally {
    await second.stop();
  }
});

test.serial('comes back on the same data dir after its process was SIGKILLed', async (t) => {
  const first = await startFerretDb({ dataDir, log });
  await withMongo(first.uri, (c) => c.db('app').collection('things').insertOne({ _id: 'killed' as never, n: 2 }));
  process.kill(first.pid, 'SIGKILL');
  t.true(await waitUntilGone(first.pid, 10_000));

  const second = await startFerretDb({ dataDir, log });
  try {
    const doc = await withMongo(second.uri, (c) => c.db('app').collection('things').findOne({ _id: 'killed' as never }));
    t.is(doc?.n, 2);
  } finally {
    await second.stop();
  }
});

test.serial('stops a leftover server named by the pid file before starting', async (t) => {
  // The first server is never stopped by us, as if the process that started it had died.
  const leftover = await startFerretDb({ dataDir, log });
  const next = await startFerretDb({ dataDir, log });
  try {
    t.true(await waitUntilGone(leftover.pid, 10_000), 'the leftover is stopped');
    t.not(next.pid, leftover.pid);
    const count = await withMongo(next.uri, (c) => c.db('app').collection('things').countDocuments());
    t.is(count, 2);
  } finally {
    await next.stop();
    await leftover.stop();
  }
});

test.serial('reports the last output of a server that exits before answering', async (t) => {
  const blocker: Server = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  try {
    const error = await t.throwsAsync(startFerretDb({ dataDir, port, log }));
    t.regex(error?.message ?? '', /ferretdb exited .* before answering/);
    t.regex(error?.message ?? '', /address already in use/);
    t.false(existsSync(join(dataDir, 'ferretdb.pid')));
  } finally {
    blocker.close();
  }
});

test.serial('a server whose port another FerretDB holds never answers with the other one’s database', async (t) => {
  const otherDir = await mkdtemp(join(tmpdir(), 'ferretdb-other-'));
  const other = await startFerretDb({ dataDir: otherDir, port: 0, log });
  t.teardown(async () => {
    await other.stop();
    await rm(otherDir, { recursive: true, force: true });
  });
  await withMongo(other.uri, (c) => c.db('app').collection('owner').insertOne({ _id: 'other' as never }));
  // Asked for the port the other server holds: its probe is answered by the other server at
  // once, but a child is ready only on a port it listens on itself, so this is a port conflict.
  const port = Number(new URL(other.uri).port);
  await t.throwsAsync(startFerretDb({ dataDir, port, log }), { message: /address already in use/ });
  // The embedded stack then starts it on a free port: its own database, not the other one.
  const mine = await onFreePorts((fallback) => startFerretDb({ dataDir, port: fallback ? 0 : port, log }));
  t.teardown(() => mine.stop());
  t.not(mine.uri, other.uri);
  t.is(await withMongo(mine.uri, (c) => c.db('app').collection('owner').countDocuments({ _id: 'other' as never })), 0);
});
