// The supervision shared by both servers, exercised with `sh` stand-ins.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { startChildServer } from '../../stack/servers/child-server';
import { isRunning, waitUntilGone } from './helpers/processes';

const log = createLogger('test-child-server', process.env.LOG_LEVEL ?? 'error');
let scratch: string;

test.before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'child-server-'));
});

test.after.always(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const notYet = () => Promise.reject(new Error('connection refused'));

test('a server that never answers is stopped, and the error shows its output', async (t) => {
  const ownPid = join(scratch, 'never.own-pid');
  const pidFile = join(scratch, 'never.pid');
  const error = await t.throwsAsync(startChildServer({
    name: 'never',
    binary: 'sh',
    args: ['-c', `echo $$ > '${ownPid}'; echo warming up; exec sleep 30`],
    pidFile,
    identityArgs: ['never'],
    probe: notYet,
    log,
    readyTimeoutMs: 500,
  }));
  t.regex(error?.message ?? '', /never did not answer within 500 ms \(last probe error: connection refused\)/);
  t.regex(error?.message ?? '', /warming up/);
  t.true(await waitUntilGone(Number(await readFile(ownPid, 'utf8')), 5_000));
  t.false(existsSync(pidFile));
});

// A child that loses its port exits within milliseconds, often while its pid file is still being
// written: before the fix most of these starts waited for ever for an exit already gone by.
test('a server that exits at once, while its pid file is written, is seen to exit every time', async (t) => {
  const outcomes: string[] = [];
  for (let i = 0; i < 20; i++) {
    const started = startChildServer({
      name: 'quick', binary: 'sh', args: ['-c', 'echo lost the port; exit 3'], pidFile: join(scratch, `quick-${i}.pid`),
      identityArgs: ['quick'], probe: notYet, log,
    });
    outcomes.push(await started.then(() => 'ready', (error: Error) => error.message));
  }
  for (const outcome of outcomes) t.regex(outcome, /quick exited \(3\) before answering; its output:\nlost the port/);
  t.false(outcomes.some((_, i) => existsSync(join(scratch, `quick-${i}.pid`))), 'every pid file removed');
});

test('a pid file naming some other process does not get that process killed', async (t) => {
  const bystander = spawn('sleep', ['30'], { stdio: 'ignore' });
  t.teardown(() => bystander.kill('SIGKILL'));
  const pidFile = join(scratch, 'reused.pid');
  await writeFile(pidFile, `${bystander.pid}\n`);
  let probes = 0;
  const server = await startChildServer({
    name: 'reused',
    binary: 'sh',
    args: ['-c', 'exec sleep 30', 'reused-identity'],
    pidFile,
    identityArgs: ['reused-identity'],
    probe: async () => { probes += 1; },
    log,
  });
  try {
    t.true(isRunning(bystander.pid!), 'the bystander still runs');
    t.is(Number(await readFile(pidFile, 'utf8')), server.pid);
    t.is(probes, 1);
  } finally {
    await server.stop();
  }
  t.false(isRunning(server.pid));
  t.false(existsSync(pidFile));
});
