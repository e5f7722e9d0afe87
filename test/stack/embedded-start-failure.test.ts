// The embedded stack starts Temporal and FerretDB at once (stack/embedded-stack.ts). When one of
// them cannot start, the one that did is stopped before the start fails, and the failure the
// start reports is the server's that failed, with what it printed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { freePort } from '../../service/free-port';
import { startEmbeddedStack } from '../../stack/embedded-stack';
import { SERVICE_TEST_ENV } from '../helpers/service-env';

/** The pids of the processes whose command line names `needle` (here: a test's own data dir). */
function processesNaming(needle: string): number[] {
  return fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).flatMap((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle) ? [Number(pid)] : [];
    } catch {
      return []; // gone meanwhile
    }
  });
}

test('a FerretDB that cannot start leaves no Temporal running, and the start fails naming FerretDB', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-start-failure-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const failing = path.join(dataDir, 'ferretdb-that-exits');
  fs.writeFileSync(failing, '#!/bin/sh\necho "no database here today" >&2\nexit 3\n', { mode: 0o755 });
  // Read from the process's environment, as an operator sets it (stack/toolchain/binaries.ts).
  process.env.FERRETDB_BIN = failing;
  t.teardown(() => { delete process.env.FERRETDB_BIN; });
  const lines: string[] = [];
  const logger = createLogger('embedded-start-failure', 'info', new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } }), 'json');
  const port = await freePort();

  const error = await t.throwsAsync(startEmbeddedStack({
    env: { ...SERVICE_TEST_ENV, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'info' },
    logger, headless: true, temporalPort: 0, mongoPort: 0,
  }));
  t.regex(error!.message, /ferretdb exited \(3\) before answering/);
  t.regex(error!.message, /no database here today/);
  t.true(lines.some((line) => line.includes('Temporal dev server at')), 'Temporal had started beside it');
  const stopped = lines.map((line) => JSON.parse(line) as { msg: string; tookMs?: Record<string, number> }).find((line) => line.msg === 'stopped');
  t.deepEqual(Object.keys(stopped?.tookMs ?? {}), ['temporal'], 'the stop that followed stopped Temporal');
  t.deepEqual(processesNaming(dataDir), [], 'no process of this data dir is left running');
});
