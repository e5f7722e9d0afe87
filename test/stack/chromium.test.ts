// The browser tests' Chromium is found, or fetched from Debian's packages into the cache without
// touching the system, or refused in one line that says what to install.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { findOnPath } from '../../stack/toolchain/executable';

const FIXTURE = fileURLToPath(new URL('./fixtures/locate-chromium.ts', import.meta.url));
// What fetching needs, and nothing that could be a browser.
const TOOLS = ['apt-get', 'apt-cache', 'dpkg-deb', 'dpkg-query', 'dpkg', 'tar', 'gzip', 'xz', 'zstd', 'sh', 'uname'];
let scratch: string;
let toolsDir: string;

test.before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'chromium-'));
  toolsDir = join(scratch, 'tools');
  await mkdir(toolsDir);
  for (const tool of TOOLS) {
    const found = await findOnPath(tool);
    if (found) await symlink(found, join(toolsDir, tool));
  }
});

test.after.always(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function locateInChild(env: NodeJS.ProcessEnv, ...args: string[]) {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', FIXTURE, ...args], {
    env, maxBuffer: 64 * 1024 * 1024, timeout: 170_000,
  });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  return JSON.parse(line?.slice('RESULT '.length) ?? '{}') as { path?: string; source?: string; answer?: number; error?: string };
}

function isolatedEnv(cache: string, path: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CONNECTOR__CACHE: cache, PATH: path };
  delete env.CHROMIUM_BIN;
  return env;
}

test('without a browser on PATH, Debian\'s chromium is fetched into the cache and runs from there', async (t) => {
  if (!(await findOnPath('apt-get'))) return t.pass('not a Debian-like system: the refusal test below covers it');
  const cache = join(scratch, 'cache');
  const fetched = await locateInChild(isolatedEnv(cache, toolsDir));
  t.is(fetched.error, undefined);
  t.is(fetched.source, 'fetched');
  t.is(fetched.path, join(cache, 'chromium', 'usr/lib/chromium/chromium'));
  t.is(fetched.answer, 42, 'the fetched browser ran a page');
  const again = await locateInChild(isolatedEnv(cache, toolsDir), '--look-only');
  t.is(again.source, 'cache', 'the second run finds it without fetching');
});

test('where it can be neither found nor fetched, one line says what to install', async (t) => {
  const result = await locateInChild(isolatedEnv(join(scratch, 'empty-cache'), join(scratch, 'nothing-here')));
  t.regex(result.error ?? '', /^Chromium is needed by the browser tests, but .*Install it \(Debian: apt-get install chromium\), or set CHROMIUM_BIN/);
  t.false((result.error ?? '').includes('\n'));
});

test('without fetching, a missing browser is refused at once naming the toolchain step', async (t) => {
  const result = await locateInChild(isolatedEnv(join(scratch, 'empty-cache'), toolsDir), '--look-only');
  t.regex(result.error ?? '', /npm run toolchain -- --chromium/);
});
