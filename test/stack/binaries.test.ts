import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { createLogger } from '../../core/logger';
import { locateBinary } from '../../stack/toolchain/binaries';
import { findOnPath } from '../../stack/toolchain/executable';

const FIXTURE = fileURLToPath(new URL('./fixtures/resolve-binary.ts', import.meta.url));
const log = createLogger('test-binaries', process.env.LOG_LEVEL ?? 'error');
let scratch: string;

test.before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'binaries-'));
});

test.after.always(async () => {
  await rm(scratch, { recursive: true, force: true });
});

// Each case runs with its own empty cache, PATH without the binaries, and no *_BIN variables.
async function isolatedEnv(cache: string): Promise<NodeJS.ProcessEnv> {
  const go = await findOnPath('go');
  const env: NodeJS.ProcessEnv = { ...process.env, CONNECTOR_REGISTRY_CACHE: cache };
  env.PATH = go ? `${dirname(go)}:/usr/bin:/bin` : '/usr/bin:/bin';
  for (const key of ['TEMPORAL_CLI', 'FERRETDB_BIN', 'ETCD_BIN', 'KWOKCTL_BIN']) delete env[key];
  return env;
}

async function resolveInChild(name: string, env: NodeJS.ProcessEnv) {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', FIXTURE, name], {
    env, maxBuffer: 64 * 1024 * 1024,
  });
  const result = stdout.split('\n').find((line) => line.startsWith('RESULT '));
  return { stdout, result: JSON.parse(result?.slice('RESULT '.length) ?? '{}') as { path?: string; source?: string; error?: string } };
}

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
  process.env.CONNECTOR_REGISTRY_CACHE = join(scratch, 'empty-cache');
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
    delete process.env.CONNECTOR_REGISTRY_CACHE;
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

// Two processes at once, as two ava workers would be: one builds, the other waits for its lock
// and then finds the binary in the cache. etcd is the quickest build (seconds with a warm Go cache).
test('concurrent callers build a missing binary once', async (t) => {
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
});
