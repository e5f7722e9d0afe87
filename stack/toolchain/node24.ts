// Node 24 for the second test leg (the service runs on Node 20.19+ and 24): NODE24_BIN, else the
// `node` package of the npm registry installed into the user-level cache (it ships the binary
// for this platform as a dependency, so nothing is fetched from outside the registry).
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../../platform/logger';
import { cacheRoot } from './cache-dir';
import { withFileLock } from './build-lock';
import { isExecutableFile } from './executable';

const exec = promisify(execFile);
const MAJOR = 24;

export async function locateNode24(options: { log: Logger }): Promise<{ path: string; source: 'env' | 'cache' | 'installed' }> {
  if (process.env.NODE24_BIN) {
    if (!(await isExecutableFile(process.env.NODE24_BIN))) throw new Error(`NODE24_BIN=${process.env.NODE24_BIN} is not an executable file`);
    return { path: process.env.NODE24_BIN, source: 'env' };
  }
  const prefix = join(cacheRoot(), `node${MAJOR}`);
  const binary = join(prefix, 'node_modules', '.bin', 'node');
  if (await isExecutableFile(binary)) return { path: binary, source: 'cache' };
  await mkdir(prefix, { recursive: true });
  await withFileLock(join(cacheRoot(), `install-node${MAJOR}.lock`), options.log, async () => {
    if (await isExecutableFile(binary)) return;
    options.log.info(`installing Node ${MAJOR} (the npm package node@${MAJOR}) into ${prefix}`);
    await exec('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `node@${MAJOR}`], { maxBuffer: 16 * 1024 * 1024 });
  });
  if (!(await isExecutableFile(binary))) throw new Error(`installing node@${MAJOR} into ${prefix} did not produce ${binary}`);
  return { path: binary, source: 'installed' };
}
