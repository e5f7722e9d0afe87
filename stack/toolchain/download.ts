// Last resort when Go is missing: the projects' official release downloads, pinned to the
// versions build.sh builds. The real URLs are untested (this machine has no internet); the
// mechanics are tested against a local server. Each binary is written under a temporary name and
// renamed, like build.sh does.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../../core/logger';

const TEMPORAL_CLI_VERSION = 'v1.5.1';
const FERRETDB_VERSION = 'v1.24.2';
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

export type DownloadableBinary = 'temporal' | 'ferretdb';

export function isDownloadable(name: string): name is DownloadableBinary {
  return name === 'temporal' || name === 'ferretdb';
}

/** The official release URL of the pinned version for this platform. */
export function releaseUrl(name: DownloadableBinary): string {
  if (name === 'temporal') {
    // The archive URL of the Temporal CLI's install instructions; the tarball holds `temporal` at its root.
    return `https://temporal.download/cli/archive/${TEMPORAL_CLI_VERSION}?platform=${goOs()}&arch=${goArch()}`;
  }
  // FerretDB v1 publishes bare Linux binaries named ferretdb-linux-<arch> (its Taskfile's
  // build-production task); there is none for macOS or Windows.
  if (process.platform !== 'linux') {
    throw new Error(`FerretDB ${FERRETDB_VERSION} publishes Linux binaries only; install Go to build it`);
  }
  return `https://github.com/FerretDB/FerretDB/releases/download/${FERRETDB_VERSION}/ferretdb-linux-${goArch()}`;
}

export async function downloadBinary(name: DownloadableBinary, binDir: string, log: Logger, url = releaseUrl(name)): Promise<string> {
  await mkdir(binDir, { recursive: true });
  // Inside binDir, so that the final rename never crosses file systems.
  const work = await mkdtemp(join(binDir, `.download-${name}-`));
  try {
    const fetched = join(work, 'fetched');
    await fetchToFile(url, fetched, log);
    const binary = name === 'temporal' ? await extract(fetched, 'temporal', work) : fetched;
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

async function fetchToFile(url: string, dest: string, log: Logger): Promise<void> {
  log.info({ url }, `downloading ${url}`);
  const response = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) }).catch((error: Error) => {
    // undici reports "fetch failed" and hides the reason (ENOTFOUND, ECONNREFUSED...) in the cause.
    const cause = (error.cause as { code?: string; message?: string } | undefined);
    throw new Error(`download of ${url} failed: ${cause?.code ?? cause?.message ?? error.message}`);
  });
  if (!response.ok || !response.body) throw new Error(`download of ${url} failed: HTTP ${response.status}`);
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), createWriteStream(dest));
}

function goOs(): string {
  if (process.platform === 'darwin' || process.platform === 'linux') return process.platform;
  throw new Error(`no download for platform ${process.platform}`);
}

function goArch(): string {
  if (process.arch === 'x64') return 'amd64';
  if (process.arch === 'arm64') return 'arm64';
  throw new Error(`no download for architecture ${process.arch}`);
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
