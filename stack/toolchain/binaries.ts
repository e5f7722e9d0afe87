// Where the real servers' binaries come from, in order: an environment variable naming the file,
// PATH, the user-level cache, a build from Go modules (build.sh), an official release download.
// Installing is serialised per build target by a lock file in the cache, so concurrent callers
// (ava workers, processes) build once; within one process, concurrent callers share one promise.
import { join } from 'node:path';
import type { Logger } from '../../core/logger';
import { withFileLock } from './build-lock';
import { cacheBinDir, cacheRoot } from './cache-dir';
import { downloadBinary, isDownloadable } from './download';
import { findOnPath, isExecutableFile } from './executable';
import { runGoBuild, type BuildTarget } from './go-build';

export type BinaryName =
  | 'temporal' | 'ferretdb' | 'etcd' | 'kwok' | 'kwokctl'
  | 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler';

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
};

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
    install = installTarget(name, options.log).finally(() => installs.delete(target));
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
  if (await isExecutableFile(cached)) return { name, path: cached, source: 'cache' };
  return undefined;
}

async function installTarget(name: BinaryName, log: Logger): Promise<BinarySource> {
  const { target } = BINARIES[name];
  return withFileLock(join(cacheRoot(), `build-${target}.lock`), log, async () => {
    // Another process may have finished the job while we waited for the lock.
    if (await isExecutableFile(join(cacheBinDir(), name))) return 'cache';
    if (await findOnPath('go')) {
      log.info({ build: target }, `${name} not found: building ${target} from Go modules into ${cacheBinDir()} (first time only; minutes)`);
      await runGoBuild(target, log);
      return 'built';
    }
    if (isDownloadable(name)) return download(name, log);
    throw missingError(name, 'Go is not installed');
  });
}

async function download(name: 'temporal' | 'ferretdb', log: Logger): Promise<BinarySource> {
  try {
    await downloadBinary(name, cacheBinDir(), log);
    return 'downloaded';
  } catch (error) {
    throw missingError(name, `Go is not installed and the download failed: ${(error as Error).message}`);
  }
}

function missingError(name: BinaryName, reason?: string): Error {
  const { envVar } = BINARIES[name];
  const command = SERVER_BINARIES.includes(name) ? 'npm run toolchain' : 'npm run toolchain -- --kube';
  return new Error(
    `${name} is not available${reason ? ` (${reason})` : ''}. Either set ${envVar} to its path, put it on PATH, ` +
      `or install Go 1.24+ (https://go.dev/dl/) and run \`${command}\`, which builds it into ${cacheBinDir()}.`,
  );
}
