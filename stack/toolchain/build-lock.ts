// A lock file in the cache folder, so that concurrent callers (two ava workers, a test and
// `npm run toolchain`) never build the same binaries twice. The file holds the owner's pid; a
// lock whose owner is gone is stale and taken over. Two waiters taking over the same stale lock
// at the same instant could both build: harmless, because build.sh renames complete binaries
// into place atomically, so the worst case is time, never a broken binary.
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../platform/logger';
import { isAlive } from './process-alive';

const POLL_MS = 500;
const NOTICE_EVERY_MS = 15_000;

export async function withFileLock<T>(lockPath: string, log: Logger, fn: () => Promise<T>): Promise<T> {
  await acquire(lockPath, log);
  try {
    return await fn();
  } finally {
    await rm(lockPath, { force: true });
  }
}

async function acquire(lockPath: string, log: Logger): Promise<void> {
  await mkdir(dirname(lockPath), { recursive: true });
  const started = Date.now();
  let lastNotice = started;
  for (;;) {
    if (await tryCreate(lockPath)) return;
    const owner = await readOwner(lockPath);
    if (owner === 'vanished') continue;
    if (owner === 'stale' || !isAlive(owner)) {
      log.warn({ lockPath, owner }, 'removing a stale build lock');
      await rm(lockPath, { force: true });
      continue;
    }
    if (Date.now() - lastNotice >= NOTICE_EVERY_MS) {
      lastNotice = Date.now();
      const waitedS = Math.round((lastNotice - started) / 1000);
      log.info({ lockPath, owner, waitedS }, `waiting for another build (pid ${owner}) to finish: ${waitedS} s`);
    }
    await sleep(POLL_MS);
  }
}

/**
 * The lock appears with its owner's pid already in it (written beside it, then hard-linked into
 * place, which fails if it exists): no waiter ever reads a lock without an owner, so none has to
 * guess from the clock whether an empty one is being written or was left.
 */
async function tryCreate(lockPath: string): Promise<boolean> {
  const draft = `${lockPath}.${process.pid}`;
  await writeFile(draft, `${process.pid}\n`);
  try {
    await link(draft, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(draft, { force: true });
  }
}

async function readOwner(lockPath: string): Promise<number | 'stale' | 'vanished'> {
  try {
    const pid = Number.parseInt(await readFile(lockPath, 'utf8'), 10);
    // A lock always holds its pid (tryCreate): one without is a leftover of an older kind.
    return Number.isInteger(pid) && pid > 0 ? pid : 'stale';
  } catch {
    return 'vanished';
  }
}
