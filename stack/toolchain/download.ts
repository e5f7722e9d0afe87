// Fetches one release (releases.ts) into the cache: the file is written under a temporary name
// inside the cache and renamed, like build.sh does, so an interrupted download leaves nothing.
// Reaching the server is bounded by a short timeout (DNS, connect, TLS and redirects until the
// response headers), so that a machine without network falls back to the Go build within seconds.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../../platform/logger';
import type { Release } from './releases';

const BODY_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_REACH_TIMEOUT_MS = 5_000;

export async function downloadBinary(
  name: string, release: Release, binDir: string, log: Logger, reachTimeoutMs = DEFAULT_REACH_TIMEOUT_MS,
): Promise<string> {
  await mkdir(binDir, { recursive: true });
  // Inside binDir, so that the final rename never crosses file systems.
  const work = await mkdtemp(join(binDir, `.download-${name}-`));
  try {
    const fetched = join(work, 'fetched');
    await fetchToFile(release.url, fetched, log, reachTimeoutMs);
    const binary = release.member ? await extract(fetched, release.member, work) : fetched;
    await chmod(binary, 0o755);
    const dest = join(binDir, name);
    await rename(binary, dest);
    return dest;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function extract(archive: string, member: string, work: string): Promise<string> {
  await run('tar', ['-xzf', archive, '-C', work, member]);
  return join(work, member);
}

async function fetchToFile(url: string, dest: string, log: Logger, reachTimeoutMs: number): Promise<void> {
  log.info({ url }, `downloading ${url}`);
  const reach = new AbortController();
  const reachTimer = setTimeout(() => reach.abort(new Error(`no answer within ${reachTimeoutMs} ms`)), reachTimeoutMs);
  const signal = AbortSignal.any([reach.signal, AbortSignal.timeout(BODY_TIMEOUT_MS)]);
  try {
    const response = await fetch(url, { redirect: 'follow', signal }).catch((error: Error) => {
      // undici reports "fetch failed" and hides the reason (ENOTFOUND, ECONNREFUSED...) in the cause.
      const cause = (error.cause as { code?: string; message?: string } | undefined);
      throw new Error(`download of ${url} failed: ${cause?.code ?? cause?.message ?? error.message}`);
    });
    clearTimeout(reachTimer);
    if (!response.ok || !response.body) throw new Error(`download of ${url} failed: HTTP ${response.status}`);
    await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), createWriteStream(dest));
  } finally {
    clearTimeout(reachTimer);
  }
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.once('error', reject);
    child.once('close', (code) => code === 0 ? resolve() : reject(new Error(`${command} failed (exit ${code}): ${stderr.trim()}`)));
  });
}
