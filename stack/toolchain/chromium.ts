// The headless Chromium the browser-driven tests use, found the way the servers are: CHROMIUM_BIN,
// PATH, the user-level cache, else Debian's package fetched into the cache (`apt-get download`
// and `dpkg-deb -x`, no root and no system change), with whatever shared libraries the machine
// lacks fetched beside it. Playwright's own browser download is not used: its host is not one
// this machine (or many CI machines) can reach.
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../../platform/logger';
import { aptGet } from './apt-get';
import { cacheRoot } from './cache-dir';
import { findOnPath, isExecutableFile } from './executable';

const exec = promisify(execFile);
const PATH_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];
const READY_MARK = '.complete';
// Always fetched, installed or not: the binary finds its data files (icudtl.dat, the .pak files)
// beside itself, so they must sit in the same tree.
const OWN_PACKAGES = ['chromium', 'chromium-common'];

export interface LocatedChromium {
  path: string;
  /** Extra environment the binary needs (the library path of a cached copy). */
  env: Record<string, string>;
  source: 'env' | 'path' | 'cache' | 'fetched';
}

export const chromiumCacheDir = (): string => join(cacheRoot(), 'chromium');

export async function locateChromium(options: { log: Logger; install?: boolean }): Promise<LocatedChromium> {
  const fromEnv = process.env.CHROMIUM_BIN;
  if (fromEnv) {
    if (!(await isExecutableFile(fromEnv))) throw new Error(`CHROMIUM_BIN=${fromEnv} is not an executable file`);
    return { path: fromEnv, env: {}, source: 'env' };
  }
  for (const name of PATH_NAMES) {
    const onPath = await findOnPath(name);
    if (onPath) return { path: onPath, env: {}, source: 'path' };
  }
  const root = chromiumCacheDir();
  if (await exists(join(root, READY_MARK))) return cached(root, 'cache');
  if (options.install === false) throw missing('it is not installed and `npm run toolchain -- --chromium` has not fetched it');
  await fetchDebianChromium(root, options.log);
  return cached(root, 'fetched');
}

function cached(root: string, source: 'cache' | 'fetched'): LocatedChromium {
  // libpulse keeps libpulsecommon in a private directory: fetched (not installed), it is not
  // found there without naming it (seen on a machine without libpulse0).
  const arches = ['x86_64-linux-gnu', 'aarch64-linux-gnu'];
  const libs = [...arches.flatMap((a) => [`usr/lib/${a}`, `lib/${a}`, `usr/lib/${a}/pulseaudio`]), 'usr/lib/chromium'];
  const inherited = process.env.LD_LIBRARY_PATH ? [process.env.LD_LIBRARY_PATH] : [];
  return {
    path: join(root, 'usr/lib/chromium/chromium'),
    env: { LD_LIBRARY_PATH: [...libs.map((dir) => join(root, dir)), ...inherited].join(':') },
    source,
  };
}

async function fetchDebianChromium(root: string, log: Logger): Promise<void> {
  if (!(await findOnPath('apt-get')) || !(await findOnPath('dpkg-deb'))) {
    throw missing('it is not installed and this is not a Debian-like system to fetch it from');
  }
  const packages = [...OWN_PACKAGES, ...(await missingDependencies(log))];
  log.info({ packages: packages.length }, `fetching Debian's chromium and ${packages.length - OWN_PACKAGES.length} missing libraries into ${root}`);
  await mkdir(cacheRoot(), { recursive: true });
  const work = await mkdtemp(`${root}.fetch-`);
  try {
    const debs = join(work, 'debs');
    await mkdir(debs);
    await aptGet(['download', '-qq', ...packages], { log, cwd: debs });
    const tree = join(work, 'root');
    for (const deb of await readdir(debs)) await exec('dpkg-deb', ['-x', join(debs, deb), tree]);
    const { path, env } = cached(tree, 'fetched');
    const version = await exec(path, ['--version'], { env: { ...process.env, ...env } }).catch((error: Error) => {
      throw missing(`the fetched copy does not run: ${error.message.split('\n')[0]}`);
    });
    log.info({ version: version.stdout.trim() }, 'chromium fetched');
    await writeFile(join(tree, READY_MARK), version.stdout);
    await rm(root, { recursive: true, force: true });
    await rename(tree, root);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Packages chromium depends on (recursively) that are not installed on this machine. */
async function missingDependencies(log: Logger): Promise<string[]> {
  let depends = await aptDepends();
  if (depends.length === 0 && process.getuid?.() === 0) {
    // A fresh Debian machine has no package lists yet.
    log.info('no package lists: running apt-get update');
    await aptGet(['update', '-qq'], { log });
    depends = await aptDepends();
  }
  if (depends.length === 0) throw missing('apt knows no package "chromium" (run apt-get update as root first)');
  const installed = new Set((await exec('dpkg-query', ['-W', '-f', '${Package} ${db:Status-Status}\\n'], { maxBuffer: 16 * 1024 * 1024 }))
    .stdout.split('\n').filter((line) => line.endsWith(' installed')).map((line) => line.split(' ')[0]));
  return depends.filter((name) => !OWN_PACKAGES.includes(name) && !installed.has(name));
}

async function aptDepends(): Promise<string[]> {
  const flags = ['--recurse', '--no-recommends', '--no-suggests', '--no-conflicts', '--no-breaks', '--no-replaces', '--no-enhances'];
  const out = await exec('apt-cache', ['depends', ...flags, 'chromium'], { maxBuffer: 16 * 1024 * 1024 }).catch(() => ({ stdout: '' }));
  // Top-level lines are package names; indented ones are the relations; <...> are virtual packages.
  const names = out.stdout.split('\n').filter((line) => line && !line.startsWith(' ') && !line.startsWith('<'));
  return [...new Set(names.map((line) => line.split(':')[0]!.trim()))];
}

function missing(why: string): Error {
  return new Error(
    `Chromium is needed by the browser tests, but ${why}. Install it (Debian: apt-get install chromium), ` +
      'or set CHROMIUM_BIN to a Chromium or Chrome binary.',
  );
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(() => true, () => false);
}
