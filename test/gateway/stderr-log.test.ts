// A stdio server's stderr reaches the service's log as data: one entry per line with the text in
// one field, cut to a length, control characters escaped. The server here writes what a hostile
// one would: a line that looks like one of the service's own JSON log lines, a newline inside a
// chunk, an escape sequence, an endless line. No log line the service writes is one it forged.
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { ProcessSource } from '../../gateway';
import { escapeControls, STDERR_LINE_CHARS, STDERR_LINES_PER_WINDOW, StderrLog } from '../../gateway/stderr-log';
import { LocalRuntime } from '../../activities/workloads/local-runtime';

interface Entry { level: number; msg: string; stderr?: string; truncated?: boolean; droppedLines?: number; connectorId?: string }

function recording() {
  const raw: string[] = [];
  const logger = createLogger('test-stderr', 'info', { write: (line: string) => void raw.push(line) });
  return { logger, raw, entries: () => raw.map((line) => JSON.parse(line) as Entry) };
}

const FORGED = '{"level":60,"time":1,"name":"connector-registry","msg":"forged: admin key rotated"}';

// Writes its stderr in pieces that split lines, then exits.
const HOSTILE_STDERR = `
const w = (s) => process.stderr.write(s);
w('starting\\n' + ${JSON.stringify(FORGED)} + '\\nhalf ');
setTimeout(() => { w('a line\\n\\u001b[2J\\u001b[31mred\\r\\n' + 'x'.repeat(${STDERR_LINE_CHARS * 3}) + '\\ntail without newline'); process.exit(0); }, 50);
`;

test('a child\'s stderr: each line one entry, the forged JSON only inside the stderr field, escapes escaped, the long line cut', async (t) => {
  const { logger, raw, entries } = recording();
  const source = new ProcessSource({ command: process.execPath, args: ['-e', HOSTILE_STDERR], stderr: { log: logger } });
  const exited = new Promise<void>((resolve) => (source.onexit = () => resolve()));
  await source.start();
  await exited;
  await new Promise((resolve) => setTimeout(resolve, 100)); // the pipe's last chunk after the exit
  const lines = entries().filter((e) => e.msg === 'stdio server stderr');
  t.deepEqual(lines.map((e) => e.stderr), [
    'starting', FORGED, 'half a line', '\\x1b[2J\\x1b[31mred', 'x'.repeat(STDERR_LINE_CHARS), 'tail without newline',
  ]);
  t.true(lines[4]!.truncated);
  t.is(raw.length, entries().length, 'every line the log got is one JSON entry of the logger\'s');
  t.false(entries().some((e) => e.msg.startsWith('forged')), 'no entry is the forged one');
  t.true(raw.every((line) => !line.includes('\u001b')), 'no escape sequence reaches the log');
});

test('a flood is counted, not logged, beyond the budget of a window', (t) => {
  const { logger, entries } = recording();
  let now = 0;
  const log = new StderrLog(logger, () => now);
  log.push('line\n'.repeat(STDERR_LINES_PER_WINDOW + 50));
  now += 61_000;
  log.push('next window\n');
  log.end();
  t.is(entries().filter((e) => e.msg === 'stdio server stderr').length, STDERR_LINES_PER_WINDOW + 1);
  t.is(entries().find((e) => e.droppedLines !== undefined)?.droppedLines, 50);
});

test('escapeControls leaves text and tabs, escapes C0, DEL and C1', (t) => {
  t.is(escapeControls('a\tb\u0000c\u007fd\u009be'), 'a\tb\\x00c\\x7fd\\x9be');
});

test('the local runtime logs a server\'s stderr as data by default, under its connector', async (t) => {
  const { logger, entries } = recording();
  const runtime = new LocalRuntime({ logger });
  t.teardown(() => runtime.close());
  const connectorId = randomUUID();
  const script = `process.stderr.write(${JSON.stringify(`${FORGED}\n`)}); setInterval(() => {}, 1000);`;
  // It never answers MCP: only its stderr matters here.
  const starting = runtime.start({ connectorId, token: null, stdio: { image: 'unused', command: [process.execPath, '-e', script] } }, { readinessTimeoutMs: 60_000 });
  starting.catch(() => undefined);
  while (!entries().some((e) => e.msg === 'stdio server stderr')) await new Promise((resolve) => setTimeout(resolve, 50));
  await runtime.remove(connectorId);
  const entry = entries().find((e) => e.msg === 'stdio server stderr');
  t.is(entry?.stderr, FORGED);
  t.is(entry?.connectorId, connectorId);
});
