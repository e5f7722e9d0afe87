// The stdio runtime of the last start, noted under DATA_DIR: a machine that gained podman between
// two starts moves its servers from local processes to containers, and that is said, naming both.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { noteRuntime } from '../../activities/workloads/runtime-note';

test('the first start and an unchanged one say nothing; a change is one warning naming both runtimes', (t) => {
  const lines: Array<{ level: number; msg: string; previous?: string; current?: string }> = [];
  const logger = createLogger('test-runtime-note', 'info', { write: (line: string) => void lines.push(JSON.parse(line)) });
  const dir = mkdtempSync(join(tmpdir(), 'runtime-note-'));
  noteRuntime(dir, 'local', logger);
  noteRuntime(dir, 'local', logger);
  t.deepEqual(lines, []);
  noteRuntime(dir, 'container (podman)', logger);
  t.is(lines.length, 1);
  t.like(lines[0], { level: 40, previous: 'local', current: 'container (podman)' });
  t.regex(lines[0]!.msg, /^the stdio runtime changed since the last start, from local to container \(podman\): connectors still connected on local start their servers again on container \(podman\)/);
  t.is(readFileSync(join(dir, 'stdio-runtime'), 'utf8'), 'container (podman)\n');
});
