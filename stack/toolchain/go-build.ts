// Runs build.sh for one target. A cold build takes minutes and the Go tool says a great deal
// while it does (every module it downloads): that goes to a log file in the cache, and a person
// sees one progress line (build-progress.ts). A failure quotes the log's last lines.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../platform/logger';
import type { BuildTarget } from './build-plan';
import { startProgress } from './build-progress';
import { cacheRoot } from './cache-dir';
import { toolchainFile } from './own-file';
import { VERSIONS } from './versions';

const BUILD_SCRIPT = toolchainFile('build.sh');
const TAIL_LINES = 30;

export interface GoBuildOptions {
  /** Whether a release download would have spared it (said on the progress line). */
  downloadable?: boolean;
  /** A terminal for the progress line; default: standard output when it is one. */
  terminal?: NodeJS.WriteStream | null;
}

/** Where a target's last build wrote its output. */
export const buildLogFile = (target: BuildTarget) => join(cacheRoot(), 'logs', `build-${target}.log`);

export async function runGoBuild(target: BuildTarget, log: Logger, options: GoBuildOptions = {}): Promise<void> {
  const logFile = buildLogFile(target);
  await mkdir(join(cacheRoot(), 'logs'), { recursive: true });
  const output = createWriteStream(logFile);
  const terminal = options.terminal === undefined ? (process.stdout.isTTY ? process.stdout : undefined) : options.terminal ?? undefined;
  const progress = startProgress({ target, logFile, downloadable: options.downloadable ?? false, log, terminal });
  let code: number | null = null;
  try {
    const child = spawn('bash', [BUILD_SCRIPT, target], {
      env: { ...process.env, ...VERSIONS, CONNECTOR__CACHE: cacheRoot() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(output, { end: false });
    child.stderr.pipe(output, { end: false });
    code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
  } finally {
    await new Promise<void>((resolve) => output.end(resolve));
    progress.stop(code === 0 ? 'built' : 'failed');
  }
  if (code !== 0) {
    const tail = (await readFile(logFile, 'utf8').catch(() => '')).trimEnd().split('\n').slice(-TAIL_LINES).join('\n');
    throw new Error(`building ${target} with Go failed (exit ${code}); the last lines of ${logFile}:\n${tail}`);
  }
}
