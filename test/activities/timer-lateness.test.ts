// The meter of this thread's timer lateness (activities/timer-lateness.ts), read in child
// processes that the test stops for real (SIGSTOP): the machine keeping a ready thread waiting.
// Two children side by side, one stopped and one not, so that the load of the machine running
// the tests late both alike and the difference is the stop.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import test from 'ava';

const METER = path.resolve('activities/timer-lateness.ts');
const STOP_MS = 800;

// Each line on stdin: the child answers with its meter's reading; `block N` runs code for N ms first.
const CHILD = `
const { timerLateness } = await import(${JSON.stringify(METER)});
timerLateness();
const lines = (await import('node:readline')).createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const [verb, ms] = line.split(' ');
  if (verb === 'block') { const until = Date.now() + Number(ms); while (Date.now() < until); }
  process.stdout.write(String(timerLateness()) + '\\n');
});
process.stdout.write('ready\\n');
`;

interface Child { process: ChildProcessWithoutNullStreams; read: (line?: string) => Promise<number> }

async function meterChild(): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], { stdio: 'pipe' });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => String((await lines.next()).value);
  if ((await next()) !== 'ready') throw new Error('the meter child did not start');
  return {
    process: child,
    read: async (line = 'read') => { child.stdin.write(`${line}\n`); return Number(await next()); },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a thread the machine keeps from running for 800 ms reads that much lateness more than one left alone', async (t) => {
  const [stopped, alone] = await Promise.all([meterChild(), meterChild()]);
  t.teardown(() => { stopped.process.kill('SIGKILL'); alone.process.kill('SIGKILL'); });
  const before = await Promise.all([stopped.read(), alone.read()]);
  stopped.process.kill('SIGSTOP');
  await sleep(STOP_MS);
  stopped.process.kill('SIGCONT');
  const after = await Promise.all([stopped.read(), alone.read()]);
  const [stoppedLate, aloneLate] = [after[0] - before[0], after[1] - before[1]];
  t.log(`lateness over the stop: stopped ${stoppedLate.toFixed(0)} ms, left alone ${aloneLate.toFixed(0)} ms`);
  t.true(stoppedLate - aloneLate >= STOP_MS / 2, `stopped ${stoppedLate} ms, alone ${aloneLate} ms`);
});

test('code this thread runs makes its timers late too (in-task admission takes its busy time off)', async (t) => {
  const child = await meterChild();
  t.teardown(() => child.process.kill('SIGKILL'));
  const before = await child.read();
  const after = await child.read('block 400');
  // The tick due during the block is overdue by nearly all of it once the reply is written.
  t.true(after - before >= 300, `${after - before} ms`);
});
