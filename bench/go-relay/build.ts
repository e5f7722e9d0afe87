// Builds bench/go-relay (the bench's Go baseline) from the Go module proxy, once, into the
// toolchain's cache (~/.cache/connector-registry/bin/bench-go-relay), as the stack's Go tools are:
// GOPROXY and the rest from the environment, GOFLAGS=-mod=mod as build.sh has it, the output in
// the cache's logs/. The sources' SHA-256 is kept beside the binary, so an edit builds it again.
// Only bench:proxy calls this: no test waits for it.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../platform/logger';
import { withFileLock } from '../../stack/toolchain/build-lock';
import { cacheBinDir, cacheRoot } from '../../stack/toolchain/cache-dir';
import { findOnPath, isExecutableFile } from '../../stack/toolchain/executable';

const SOURCE_DIR = path.dirname(fileURLToPath(import.meta.url));
const SOURCES = ['main.go', 'go.mod', 'go.sum'];
const NAME = 'bench-go-relay';

/** The relay's binary: the cached one when its sources have not changed, else built now. */
export async function ensureGoRelay(log: Logger): Promise<string> {
  const binary = path.join(cacheBinDir(), NAME);
  const stampFile = `${binary}.sha256`;
  const digest = await sourcesDigest();
  const current = async () => (await isExecutableFile(binary)) && (await readFile(stampFile, 'utf8').catch(() => '')).trim() === digest;
  if (await current()) return binary;
  const go = await findOnPath('go');
  if (!go) throw new Error(`the Go baseline needs Go 1.25+ on PATH (it is built from ${SOURCE_DIR})`);
  await withFileLock(path.join(cacheRoot(), `build-${NAME}.lock`), log, async () => {
    if (await current()) return; // built by another process while this one waited
    await goBuild(go, binary, log);
    await writeFile(stampFile, `${digest}\n`);
  });
  return binary;
}

async function sourcesDigest(): Promise<string> {
  const hash = createHash('sha256');
  for (const name of SOURCES) hash.update(name).update(await readFile(path.join(SOURCE_DIR, name)));
  return hash.digest('hex');
}

/** In a copy of the sources (go may rewrite go.mod and go.sum), into a temporary name, then renamed. */
async function goBuild(go: string, binary: string, log: Logger): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), `${NAME}-`));
  const logFile = path.join(cacheRoot(), 'logs', `build-${NAME}.log`);
  await mkdir(path.dirname(logFile), { recursive: true });
  await mkdir(path.dirname(binary), { recursive: true });
  log.info({ logFile }, 'building the Go relay of bench:proxy from Go modules (first time only; 1–3 min)');
  const output = createWriteStream(logFile);
  const draft = `${binary}.tmp.${process.pid}`;
  try {
    for (const name of SOURCES) await cp(path.join(SOURCE_DIR, name), path.join(work, name));
    const child = spawn(go, ['build', '-trimpath', '-o', draft, '.'], {
      cwd: work, env: { ...process.env, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(output, { end: false });
    child.stderr.pipe(output, { end: false });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0) throw new Error(`building the Go relay failed (exit ${code}): see ${logFile}`);
    await rename(draft, binary);
  } finally {
    await new Promise<void>((resolve) => output.end(resolve));
    await rm(work, { recursive: true, force: true });
    await rm(draft, { force: true }); // left only by a failed build
  }
}
