// A Go build shows one progress line: elapsed, expected, where its output went, and what a
// release download would have saved. On a terminal the line is rewritten in place and cleared at
// the end; in a log it is a line per minute. Either way the build is announced once.
import { Writable } from 'node:stream';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { duration, finalLine, progressLine, startProgress } from '../../stack/toolchain/build-progress';

const options = { target: 'temporal' as const, logFile: '/cache/logs/build-temporal.log', downloadable: true };

test('the line says elapsed and expected time, the log file, and that a download would have saved the build', (t) => {
  t.is(duration(5), '5 s');
  t.is(duration(185), '3 min 05 s');
  t.is(progressLine(options, 83), 'building temporal from Go modules: 1 min 23 s of about 3–6 min (first start only); a release download would have saved it (CONNECTOR__RELEASE_MIRROR); output in /cache/logs/build-temporal.log');
  t.is(finalLine({ ...options, target: 'ferretdb', downloadable: false }, 70, 'built'), 'built ferretdb in 1 min 10 s (expected about 65 s–6 min)');
  t.regex(finalLine(options, 12, 'failed'), /^building temporal failed after 12 s; its output is in \/cache\/logs\/build-temporal\.log$/);
});

test('on a terminal: one line rewritten in place, cleared at the end, then one log line saying it was built', (t) => {
  let written = '';
  const terminal = new Writable({ write(chunk, _encoding, done) { written += String(chunk); done(); } }) as unknown as NodeJS.WriteStream;
  const logged: string[] = [];
  const log = createLogger('test', 'info', new Writable({ write(chunk, _encoding, done) { logged.push(JSON.parse(String(chunk)).msg); done(); } }));
  let now = 0;
  const progress = startProgress({ ...options, log, terminal, now: () => now });
  now = 61_000;
  progress.stop('built');
  t.true(written.startsWith('\r\x1b[Kbuilding temporal from Go modules: 0 s of'), JSON.stringify(written));
  t.true(written.endsWith('\r\x1b[K'), 'the line is cleared');
  t.false(written.includes('\n'), 'never a new line on the terminal');
  t.deepEqual(logged, ['built temporal in 1 min 01 s (expected about 3–6 min); a release download would have saved it (CONNECTOR__RELEASE_MIRROR)']);
});

test('into a log: the progress line once at the start (and once a minute), then the outcome', (t) => {
  const logged: string[] = [];
  const log = createLogger('test', 'info', new Writable({ write(chunk, _encoding, done) { logged.push(JSON.parse(String(chunk)).msg); done(); } }));
  startProgress({ ...options, log, now: () => 0 }).stop('failed');
  t.is(logged.length, 2);
  t.regex(logged[0]!, /^building temporal from Go modules: 0 s of about/);
  t.regex(logged[1]!, /^building temporal failed after 0 s/);
});
