import { execFile } from 'node:child_process';
import { access, chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { RENAMED_VARIABLES } from '../../config/renamed-variables';
import { locateBinary } from '../../stack/toolchain/binaries';
import { findOnPath } from '../../stack/toolchain/executable';
import { officialRelease } from '../../stack/toolchain/releases';

const FIXTURE = fileURLToPath(new URL('./fixtures/resolve-binary.ts', import.meta.url));
const log = createLogger('test-binaries', process.env.LOG_LEVEL ?? 'error');
let scratch: string;
// A release mirror on loopback (CONNECTOR__RELEASE_MIRROR): /ok/ serves kwok's two
// binaries, /silent/ takes connections and never answers (a network that drops packets).
let mirror: Server;
let mirrorBase: string;

test.before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'binaries-'));
  const assets = new Map(['kwok', 'kwokctl'].map((name) => [`/ok/${officialRelease(name)?.asset}`, `#!/bin/sh\necho ${name}-downloaded\n`]));
  mirror = createServer((req, res) => {
    if (req.url?.startsWith('/silent/')) return;
    const body = assets.get(req.url ?? '');
    res.writeHead(body ? 200 : 404).end(body);
  });
  await new Promise<void>((resolve) => mirror.listen(0, '127.0.0.1', resolve));
  mirrorBase = `http://127.0.0.1:${(mirror.address() as { port: number }).port}`;
});

test.after.always(async () => {
  mirror?.closeAllConnections();
  mirror?.close();
  await rm(scratch, { recursive: true, force: true });
});

// Each case runs with its own empty cache, PATH without the binaries, no *_BIN variables, and
// releases fetched from the loopback mirror only. The reach timeout decides the outcome only
// against /silent/, which never answers (500 ms, so that the build follows soon); /ok/ is a
// loopback server known to be up, which a busy machine may still answer late: it gets ten minutes,
// as the download's body does, so that it is never given up on for the machine's load.
const NEVER_GIVEN_UP_MS = String(10 * 60_000);

async function isolatedEnv(cache: string, mirrorPath: '/silent' | '/ok' = '/silent'): Promise<NodeJS.ProcessEnv> {
  const go = await findOnPath('go');
  const env: NodeJS.ProcessEnv = {
    ...process.env, CONNECTOR__CACHE: cache, CONNECTOR__RELEASE_MIRROR: `${mirrorBase}${mirrorPath}`,
    CONNECTOR__DOWNLOAD_TIMEOUT_MS: mirrorPath === '/ok' ? NEVER_GIVEN_UP_MS : '500',
  };
  delete env.CONNECTOR__DOWNLOAD;
  for (const old of Object.keys(RENAMED_VARIABLES)) delete env[old];
  env.PATH = go ? `${dirname(go)}:/usr/bin:/bin` : '/usr/bin:/bin';
  for (const key of ['TEMPORAL_CLI', 'FERRETDB_BIN', 'ETCD_BIN', 'KWOK_BIN', 'KWOKCTL_BIN']) delete env[key];
  return env;
}

async function resolveInChild(name: string, env: NodeJS.ProcessEnv, fixture = FIXTURE) {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', fixture, name], {
    env, maxBuffer: 64 * 1024 * 1024,
  });
  const result = stdout.split('\n').find((line) => line.startsWith('RESULT '));
  return { stdout, result: JSON.parse(result?.slice('RESULT '.length) ?? '{}') as { path?: string; source?: string; error?: string } };
}

const PLAN_FIXTURE = fileURLToPath(new URL('./fixtures/plan-installs.ts', import.meta.url));

// The first two change process.env, so they run alone (serial tests run before the others).
test.serial('an environment variable wins, and a wrong one is an error rather than a silent fallback', async (t) => {
  const fake = join(scratch, 'my-ferretdb');
  await writeFile(fake, '#!/bin/sh\n');
  await chmod(fake, 0o755);
  process.env.FERRETDB_BIN = fake;
  try {
    t.deepEqual(await locateBinary('ferretdb', { log }), { name: 'ferretdb', path: fake, source: 'env' });
    process.env.FERRETDB_BIN = join(scratch, 'missing');
    await t.throwsAsync(locateBinary('ferretdb', { log }), { message: /FERRETDB_BIN=.*missing is not an executable file/ });
  } finally {
    delete process.env.FERRETDB_BIN;
  }
});

test.serial('without installing, a missing binary fails saying what to install', async (t) => {
  process.env.CONNECTOR__CACHE = join(scratch, 'empty-cache');
  const { PATH: savedPath, ETCD_BIN: savedEtcd } = process.env;
  delete process.env.ETCD_BIN;
  process.env.PATH = '/nonexistent';
  try {
    const error = await t.throwsAsync(locateBinary('etcd', { log, install: false }));
    t.regex(error?.message ?? '', /ETCD_BIN/);
    t.regex(error?.message ?? '', /npm run toolchain -- --kube/);
  } finally {
    process.env.PATH = savedPath;
    if (savedEtcd) process.env.ETCD_BIN = savedEtcd;
    delete process.env.CONNECTOR__CACHE;
  }
});

test('a binary found on PATH is used as it is', async (t) => {
  const dir = join(scratch, 'path-bin');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'kwokctl'), '#!/bin/sh\n');
  await chmod(join(dir, 'kwokctl'), 0o755);
  const env = await isolatedEnv(join(scratch, 'unused-cache'));
  env.PATH = `${dir}:${env.PATH}`;
  const { result } = await resolveInChild('kwokctl', env);
  t.deepEqual(result, { name: 'kwokctl', path: join(dir, 'kwokctl'), source: 'path' });
});

test('a release download comes before a Go build, and brings every binary of the target', async (t) => {
  const cache = join(scratch, 'download-cache');
  const { stdout, result } = await resolveInChild('kwokctl', await isolatedEnv(cache, '/ok'));
  t.deepEqual(result, { name: 'kwokctl', path: join(cache, 'bin', 'kwokctl'), source: 'downloaded' });
  t.is((await promisify(execFile)(join(cache, 'bin', 'kwokctl'))).stdout.trim(), 'kwokctl-downloaded');
  await t.notThrowsAsync(access(join(cache, 'bin', 'kwok')), 'kwok came with kwokctl, as a build would make both');
  t.false(stdout.includes('building'), 'no Go build ran');
});

test('downloads can be turned off: the Go build is used directly', async (t) => {
  const env = await isolatedEnv(join(scratch, 'no-download-cache'), '/ok');
  env.CONNECTOR__DOWNLOAD = '0';
  env.PATH = '/usr/bin:/bin'; // no Go either, so the answer says both
  const { result } = await resolveInChild('kwokctl', env);
  t.regex(result.error ?? '', /Go is not installed, and downloads are off \(CONNECTOR__DOWNLOAD=0\)/);
});

// Two processes at once, as two ava workers would be: one installs, the other waits for its lock
// and then finds the binary in the cache. The mirror never answers, as on a machine without
// network: the download is given up after its reach timeout and the Go build follows. etcd is
// the quickest build (seconds with a warm Go cache).
test('with no answer from the release server, concurrent callers build a missing binary once', async (t) => {
  const env = await isolatedEnv(join(scratch, 'fresh-cache'));
  const [a, b] = await Promise.all([resolveInChild('etcd', env), resolveInChild('etcd', env)]);
  if (!(await findOnPath('go'))) {
    t.regex(a.result.error ?? '', /Go is not installed/);
    return;
  }
  t.deepEqual([a.result.source, b.result.source].sort(), ['built', 'cache']);
  t.is(a.result.path, join(scratch, 'fresh-cache', 'bin', 'etcd'));
  t.is(b.result.path, a.result.path);
  const builds = `${a.stdout}${b.stdout}`.split('\n').filter((line) => line.includes('built etcd in'));
  t.is(builds.length, 1, 'build.sh ran once');
  t.true(`${a.stdout}${b.stdout}`.includes('no answer within 500 ms'), 'the download was tried first and given up on');
});

test('before any build, the plan says what is left to build, how long each takes, and what a download would have avoided', async (t) => {
  const cache = join(scratch, 'plan-cache');
  const { stdout: downloaded, result: none } = await resolveInChild('kwokctl', await isolatedEnv(cache, '/ok'), PLAN_FIXTURE);
  t.deepEqual(none, [], 'a download that works leaves nothing to build');
  t.false(downloaded.includes('Go build'));
  await t.notThrowsAsync(access(join(cache, 'bin', 'kwokctl')));
  if (!(await findOnPath('go'))) return;
  const { stdout, result } = await resolveInChild('etcd', await isolatedEnv(join(scratch, 'plan-silent-cache')), PLAN_FIXTURE);
  t.like(result, [{ target: 'etcd', binaries: ['etcd'], downloadable: true }]);
  t.regex(stdout, /1 Go build to run, one at a time: about 35 s on 2 quiet cores, up to 3 min on 2 busy ones/);
  t.regex(stdout, /etcd +~35 s–3 min +etcd: no download \(.*no answer within 500 ms\)/);
  t.regex(stdout, /a release download would have avoided etcd/);
  await t.throwsAsync(access(join(scratch, 'plan-silent-cache', 'bin', 'etcd')), undefined, 'planning builds nothing');
});
