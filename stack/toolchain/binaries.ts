// Where the real servers' binaries come from, in order: an environment variable naming the file,
// PATH, the user-level cache, an official release download (seconds; skipped with
// CONNECTOR__DOWNLOAD=0), a build from Go modules (build.sh; minutes). FerretDB is the
// exception: with Go present it is built, because build.sh patches its _id lookups to use the
// index (without the patch every write scans the collection); its download is the fallback.
// Installing is serialised per build target by a lock file in the cache, so concurrent callers
// (ava workers, processes) build once; within one process, concurrent callers share one promise.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../platform/logger';
import { withFileLock } from './build-lock';
import { cacheBinDir, cacheRoot } from './cache-dir';
import { downloadBinary } from './download';
import { releaseFor } from './releases';
import { findOnPath, isExecutableFile } from './executable';
import { runGoBuild, type BuildTarget } from './go-build';
import { toolchainFile } from './own-file';
import type { PlannedBuild } from './build-plan';
import { toolchainVariable } from './toolchain-env';

export type BinaryName =
  | 'temporal' | 'ferretdb' | 'etcd' | 'kwok' | 'kwokctl'
  | 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler' | 'helm';

export type BinarySource = 'env' | 'path' | 'cache' | 'built' | 'downloaded';

export interface ResolvedBinary {
  name: BinaryName;
  path: string;
  source: BinarySource;
}

export interface ResolveOptions {
  log: Logger;
  /** false: only look (env, PATH, cache), never build or download. Default true. */
  install?: boolean;
  /** false: no release download is tried (planInstalls() has tried it already). Default true. */
  download?: boolean;
}

const BINARIES: Record<BinaryName, { envVar: string; target: BuildTarget }> = {
  temporal: { envVar: 'TEMPORAL_CLI', target: 'temporal' },
  ferretdb: { envVar: 'FERRETDB_BIN', target: 'ferretdb' },
  etcd: { envVar: 'ETCD_BIN', target: 'etcd' },
  kwok: { envVar: 'KWOK_BIN', target: 'kwok' },
  kwokctl: { envVar: 'KWOKCTL_BIN', target: 'kwok' },
  'kube-apiserver': { envVar: 'KUBE_APISERVER_BIN', target: 'kube' },
  'kube-controller-manager': { envVar: 'KUBE_CONTROLLER_MANAGER_BIN', target: 'kube' },
  'kube-scheduler': { envVar: 'KUBE_SCHEDULER_BIN', target: 'kube' },
  helm: { envVar: 'HELM_BIN', target: 'helm' },
};

/** What one install produces: a Go build makes every binary of its target at once. */
const TARGET_BINARIES: Record<BuildTarget, BinaryName[]> = {
  temporal: ['temporal'],
  ferretdb: ['ferretdb'],
  etcd: ['etcd'],
  kwok: ['kwok', 'kwokctl'],
  kube: ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'],
  helm: ['helm'],
};
const BUILD_FIRST: ReadonlySet<BuildTarget> = new Set(['ferretdb']);

export const SERVER_BINARIES: readonly BinaryName[] = ['temporal', 'ferretdb'];
export const KUBE_BINARIES: readonly BinaryName[] = [
  'etcd', 'kwok', 'kwokctl', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler',
];

const installs = new Map<BuildTarget, Promise<BinarySource>>();

export async function resolveBinary(name: BinaryName, options: ResolveOptions): Promise<string> {
  return (await locateBinary(name, options)).path;
}

export async function locateBinary(name: BinaryName, options: ResolveOptions): Promise<ResolvedBinary> {
  const found = await lookWithoutInstalling(name);
  if (found) return found;
  if (options.install === false) throw missingError(name);
  const { target } = BINARIES[name];
  let install = installs.get(target);
  if (!install) {
    install = installTarget(name, options.log, options.download !== false).finally(() => installs.delete(target));
    installs.set(target, install);
  }
  const source = await install;
  const path = join(cacheBinDir(), name);
  if (!(await isExecutableFile(path))) throw missingError(name, `installing ${target} did not produce ${path}`);
  return { name, path, source };
}

async function lookWithoutInstalling(name: BinaryName): Promise<ResolvedBinary | undefined> {
  const { envVar } = BINARIES[name];
  const fromEnv = process.env[envVar];
  if (fromEnv) {
    // An explicit choice that is wrong must not be silently replaced by another binary.
    if (!(await isExecutableFile(fromEnv))) throw new Error(`${envVar}=${fromEnv} is not an executable file`);
    return { name, path: fromEnv, source: 'env' };
  }
  const onPath = await findOnPath(name);
  if (onPath) return { name, path: onPath, source: 'path' };
  const cached = join(cacheBinDir(), name);
  if ((await isExecutableFile(cached)) && (await builtFromCurrentPatch(name))) return { name, path: cached, source: 'cache' };
  return undefined;
}

const FERRETDB_PATCH = toolchainFile('ferretdb.patch');
/** Written by build.sh beside a FerretDB it built: the SHA-256 of the ferretdb.patch it applied. */
export const FERRETDB_PATCH_STAMP = 'ferretdb.patch-sha256';

/**
 * A cached FerretDB built with an older ferretdb.patch (or none) is built again where Go is
 * there, so that every checkout runs the database its code expects (lists walk the _id index).
 */
async function builtFromCurrentPatch(name: BinaryName): Promise<boolean> {
  if (name !== 'ferretdb' || !(await findOnPath('go'))) return true;
  const [stamp, patch] = await Promise.all([
    readFile(join(cacheBinDir(), FERRETDB_PATCH_STAMP), 'utf8').catch(() => ''),
    readFile(FERRETDB_PATCH),
  ]);
  return stamp.trim() === createHash('sha256').update(patch).digest('hex');
}

/**
 * Tries the release downloads of every target that `names` miss, and answers the Go builds that
 * remain to be run (with Go there), so that they can be announced with their expected times
 * (build-plan.ts) before the first one starts.
 */
export async function planInstalls(names: readonly BinaryName[], log: Logger): Promise<PlannedBuild[]> {
  const hasGo = Boolean(await findOnPath('go'));
  const missing = new Map<BuildTarget, BinaryName>();
  for (const name of names) if (!(await lookWithoutInstalling(name))) missing.set(BINARIES[name].target, name);
  const builds: PlannedBuild[] = [];
  for (const [target, name] of missing) {
    const binaries = TARGET_BINARIES[target];
    const downloadable = binaries.every((binary) => releaseFor(binary) !== null);
    if (hasGo && BUILD_FIRST.has(target)) {
      builds.push({ target, binaries, why: 'built on purpose, for its patch (lists and _id lookups use the index)', downloadable: false });
      continue;
    }
    const failure = await withFileLock(join(cacheRoot(), `build-${target}.lock`), log, async () => (await lookWithoutInstalling(name) ? null : downloadTarget(target, log)));
    if (failure !== null && hasGo) builds.push({ target, binaries, why: `no download (${failure})`, downloadable });
  }
  return builds;
}

async function installTarget(name: BinaryName, log: Logger, download: boolean): Promise<BinarySource> {
  const { target } = BINARIES[name];
  return withFileLock(join(cacheRoot(), `build-${target}.lock`), log, async () => {
    // Another process may have finished the job while we waited for the lock.
    if ((await isExecutableFile(join(cacheBinDir(), name))) && (await builtFromCurrentPatch(name))) return 'cache';
    const hasGo = Boolean(await findOnPath('go'));
    const downloadFailure = hasGo && BUILD_FIRST.has(target) ? 'built first'
      : download ? await downloadTarget(target, log) : 'its download was tried already';
    if (downloadFailure === null) return 'downloaded';
    if (!hasGo) throw missingError(name, `Go is not installed, and ${downloadFailure}`);
    log.info({ build: target }, `${name} not found: building ${target} from Go modules into ${cacheBinDir()} (first time only; minutes)`);
    await runGoBuild(target, log);
    return 'built';
  });
}

/** Downloads every binary of the target; null when done, else why not (logged, not thrown). */
async function downloadTarget(target: BuildTarget, log: Logger): Promise<string | null> {
  if (toolchainVariable('CONNECTOR__DOWNLOAD') === '0') return 'downloads are off (CONNECTOR__DOWNLOAD=0)';
  const reachTimeoutMs = Number(toolchainVariable('CONNECTOR__DOWNLOAD_TIMEOUT_MS')) || undefined;
  try {
    for (const binary of TARGET_BINARIES[target]) {
      const release = releaseFor(binary);
      if (!release) return `no release of ${binary} is published for this platform`;
      await downloadBinary(binary, release, cacheBinDir(), log, reachTimeoutMs);
    }
    return null;
  } catch (error) {
    log.info({ build: target }, (error as Error).message);
    return (error as Error).message;
  }
}

function missingError(name: BinaryName, reason?: string): Error {
  const { envVar } = BINARIES[name];
  const command = SERVER_BINARIES.includes(name) ? 'npm run toolchain' : `npm run toolchain -- --${name === 'helm' ? 'helm' : 'kube'}`;
  return new Error(
    `${name} is not available${reason ? ` (${reason})` : ''}. Either set ${envVar} to its path, put it on PATH, ` +
      `or install Go 1.24+ (https://go.dev/dl/) and run \`${command}\`, which builds it into ${cacheBinDir()}.`,
  );
}
