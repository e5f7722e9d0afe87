// A first `npm start` on a machine with empty caches and no release download builds the servers
// from Go modules, which takes minutes: the start-up watchdog must time the start of the servers,
// never that build. Here the Go tool is a stand-in (a FAKE, named as such: it prints what `go
// install` prints, sleeps longer than the watchdog allows, then puts the real Temporal CLI where
// the build would have), the watchdog is shortened to WATCHDOG_S, and the compiled `npm start`
// entry must still become ready. Its output shows the plan, one progress line for the build
// (announced once) and its outcome; the Go tool's chatter goes to the build's log file only.
// Needs `npm run build` (dist/embedded.mjs) and the toolchain's servers.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { freePortBelowEphemeral } from '../../service/free-port';
import { locateBinary } from '../../stack/toolchain/binaries';
import { startStackProcess } from '../helpers/stack-process';

const WATCHDOG_S = 40;
const FAKE_BUILD_S = WATCHDOG_S + 5;
const CHATTER_LINES = 200;

const FAKE_GO = `#!/bin/bash
# FAKE Go tool for this test: \`go install <module>@<version>\` only.
[ "$1" = install ] || { echo "fake go: unexpected: $*" >&2; exit 2; }
for i in $(seq 1 ${CHATTER_LINES}); do echo "go: downloading example.com/module$i v1.0.$i" >&2; done
sleep ${FAKE_BUILD_S}
mkdir -p "$GOBIN" && cp "$REAL_TEMPORAL" "$GOBIN/temporal"
`;

test('a first start whose Go build outlasts the start-up watchdog becomes ready, with one progress line and the Go chatter in a log file', async (t) => {
  const log = createLogger('first-start-test', 'warn');
  const [temporal, ferretdb] = await Promise.all([locateBinary('temporal', { log, install: false }), locateBinary('ferretdb', { log, install: false })]);
  const scratch = await mkdtemp(join(tmpdir(), 'first-start-'));
  t.teardown(() => rm(scratch, { recursive: true, force: true }));
  const cache = join(scratch, 'cache');
  const fakeBin = join(scratch, 'fake-bin');
  await mkdir(fakeBin, { recursive: true });
  await writeFile(join(fakeBin, 'go'), FAKE_GO);
  await chmod(join(fakeBin, 'go'), 0o755);
  const port = await freePortBelowEphemeral();
  const logFile = join(scratch, 'npm-start.log');
  const started = Date.now();
  const stack = await startStackProcess({
    entry: 'dist/embedded.mjs', logFile, readyLogLine: 'connector registry ready', nodeArgs: ['--max-old-space-size=160'],
    env: {
      PATH: `${fakeBin}:/usr/bin:/bin`, CONNECTOR__CACHE: cache, CONNECTOR__DOWNLOAD: '0', TEMPORAL_CLI: '', FERRETDB_BIN: ferretdb.path,
      REAL_TEMPORAL: temporal.path, CONNECTOR__START_TIMEOUT_S: String(WATCHDOG_S),
      DATA_DIR: join(scratch, 'data'), PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, LOG_FORMAT: 'json',
    },
  });
  const tookS = (Date.now() - started) / 1000;
  t.true(tookS > WATCHDOG_S, `ready after ${tookS.toFixed(0)} s, past the watchdog's ${WATCHDOG_S} s`);
  t.is((await stack.api('GET', '/readyz')).status, 200);
  t.is(await stack.stop(), 0);

  const messages = (await readFile(logFile, 'utf8')).split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { msg: string }).msg);
  t.true(messages.some((m) => m.startsWith('toolchain: 1 Go build to run')), 'the plan is said before the build');
  t.true(messages.some((m) => /^ {2}temporal +~3–6 min +temporal: no download \(downloads are off/.test(m)));
  const progress = messages.filter((m) => m.startsWith('building temporal'));
  t.is(progress.length, 1, `one progress line (a build under a minute): ${JSON.stringify(progress)}`);
  t.regex(progress[0]!, /^building temporal from Go modules: 0 s of about 3–6 min \(first start only\); a release download would have saved it/);
  t.is(messages.filter((m) => m.startsWith('built temporal in')).length, 1);
  t.false(messages.some((m) => m.includes('go: downloading')), 'no Go chatter in the output');
  t.false(messages.some((m) => m.includes('did not start within')), 'the watchdog never fired');
  const buildLog = await readFile(join(cache, 'logs', 'build-temporal.log'), 'utf8');
  t.is(buildLog.split('\n').filter((line) => line.startsWith('go: downloading')).length, CHATTER_LINES, 'the chatter is in the build log');
});
