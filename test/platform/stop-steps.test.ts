// A stop made of steps: they run in the order given, a failing one does not keep the next from
// running, and the line logged at the end names every step with its time.
import { Writable } from 'node:stream';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { runStopSteps } from '../../platform/stop-steps';

function capture() {
  const lines: Record<string, any>[] = [];
  const stream = new Writable({ write(chunk, _encoding, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  return { logger: createLogger('stop-steps-test', 'info', stream, 'json'), lines };
}

test('every step runs in order, a failed one is logged, and the last line times each step', async (t) => {
  const { logger, lines } = capture();
  const ran: string[] = [];
  await runStopSteps(logger, 'stopped', [
    { name: 'slow', stop: () => new Promise<void>((resolve) => setTimeout(() => { ran.push('slow'); resolve(); }, 60)) },
    { name: 'failing', stop: () => { ran.push('failing'); throw new Error('cannot close'); } },
    { name: 'last', stop: async () => void ran.push('last') },
  ]);
  t.deepEqual(ran, ['slow', 'failing', 'last']);
  const failure = lines.find((line) => line.msg === 'stop failed');
  t.is(failure?.step, 'failing');
  t.is(failure?.err?.message, 'cannot close');
  const summary = lines.at(-1)!;
  t.is(summary.msg, 'stopped');
  t.deepEqual(Object.keys(summary.tookMs), ['slow', 'failing', 'last']);
  t.true(summary.tookMs.slow >= 50, `the slow step took ${summary.tookMs.slow} ms`);
  t.true(summary.totalMs >= summary.tookMs.slow);
});
