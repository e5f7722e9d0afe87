// Containers without an image registry: the container engine (podman, installed from Debian's
// packages where this user may), a base image made from Debian's packages and the npm package
// node@24 (what `node:24-slim` gives a user who can pull it), and images built on it. Everything is
// built once and kept: the engine's image store is the cache, plus the Debian tarball.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rename, rm, writeFile, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { detectContainerEngine, type ContainerEngine } from '../../activities/workloads/container-engine';
import type { Logger } from '../../platform/logger';
import { aptGet } from './apt-get';
import { withFileLock } from './build-lock';
import { cacheRoot } from './cache-dir';
import { locateNode24 } from './node24';
import { toolchainVariable } from './toolchain-env';

const exec = promisify(execFile);
export const DEBIAN_IMAGE = 'localhost/connector-registry/debian:bookworm';
export const NODE_BASE_IMAGE = 'localhost/connector-registry/node-base:24';
const NPM_VERSION = '11';
const HOST_CA_BUNDLE = process.env.SSL_CERT_FILE ?? '/etc/ssl/certs/ca-certificates.crt';
// crun refuses hybrid cgroups and cannot set these limits on some kernels; runc with fixed ulimits works.
const CONTAINERS_CONF = `[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]\n[engine]\nruntime = "runc"\n`;

export type EngineFound = { engine: ContainerEngine; source: 'found' | 'installed' } | { engine: null; reason: string };

/** podman or Docker that answers; else podman from Debian's packages where this is root on Debian. */
export async function locateContainerEngine(options: { log: Logger }): Promise<EngineFound> {
  const found = await detectContainerEngine();
  if (found) return { engine: found, source: 'found' };
  if (toolchainVariable('CONNECTOR__INSTALL_PODMAN') === '0') return { engine: null, reason: 'CONNECTOR__INSTALL_PODMAN=0' };
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    return { engine: null, reason: 'neither podman nor Docker answers, and podman can only be installed here as root on Debian (apt-get install podman runc)' };
  }
  options.log.info('installing podman and runc from Debian packages (about 40 s)');
  await aptGet(['update', '-qq'], options);
  await aptGet(['install', '-y', '-qq', 'podman', 'runc', 'mmdebstrap'], options);
  if (!existsSync('/etc/containers/containers.conf')) {
    await mkdir('/etc/containers', { recursive: true });
    await writeFile('/etc/containers/containers.conf', CONTAINERS_CONF);
  }
  const installed = await detectContainerEngine(['podman']);
  if (!installed) return { engine: null, reason: 'podman was installed but does not answer `podman version`' };
  return { engine: installed, source: 'installed' };
}

/** The Node 24 base the project's images and test images build on, made here when missing. */
export async function ensureNodeBaseImage(engine: ContainerEngine, options: { log: Logger }): Promise<string> {
  if (await engine.imageExists(NODE_BASE_IMAGE)) return NODE_BASE_IMAGE;
  await withFileLock(join(cacheRoot(), 'node-base-image.lock'), options.log, async () => {
    if (await engine.imageExists(NODE_BASE_IMAGE)) return;
    if (!(await engine.imageExists(DEBIAN_IMAGE))) await importDebian(engine, options.log);
    await buildNodeBase(engine, options.log);
  });
  return NODE_BASE_IMAGE;
}

export interface ImageBuild {
  tag: string;
  file: string;
  context: string;
  buildArgs?: Record<string, string>;
  /** More tags for the same image. */
  alsoTag?: string[];
  /** Each line of the engine's output as it comes (a first build runs for minutes). */
  progress?: (line: string) => void;
}

/** Builds an image, never pulling: the context directory and Containerfile are the caller's. */
export async function buildImage(engine: ContainerEngine, args: ImageBuild): Promise<void> {
  const buildArgs = Object.entries(args.buildArgs ?? {}).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]);
  const tags = [args.tag, ...(args.alsoTag ?? [])].flatMap((tag) => ['-t', tag]);
  const running = exec(engine.program, ['build', '--pull=never', ...buildArgs, '-f', args.file, ...tags, args.context], {
    maxBuffer: 256 * 1024 * 1024, timeout: 30 * 60_000,
  });
  if (args.progress) for (const stream of [running.child.stdout, running.child.stderr]) forEachLine(stream, args.progress);
  await running;
}

function forEachLine(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  let pending = '';
  stream?.on('data', (chunk: Buffer | string) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) onLine(line);
  });
}

async function importDebian(engine: ContainerEngine, log: Logger): Promise<void> {
  const tarball = join(cacheRoot(), 'images', 'debian-bookworm-minbase.tar');
  if (!existsSync(tarball)) {
    await mkdir(join(cacheRoot(), 'images'), { recursive: true });
    const mirror = await debianMirror();
    log.info({ mirror }, 'making a Debian bookworm base image from Debian packages with mmdebstrap (about 90 s)');
    await exec('mmdebstrap', ['--variant=minbase', '--format=tar', '--include=ca-certificates', 'bookworm', `${tarball}.partial`, `deb ${mirror} bookworm main`], {
      maxBuffer: 64 * 1024 * 1024, timeout: 20 * 60_000,
    });
    await rename(`${tarball}.partial`, tarball);
  }
  await exec(engine.program, ['import', '--change', 'CMD ["/bin/bash"]', tarball, DEBIAN_IMAGE], { maxBuffer: 16 * 1024 * 1024 });
}

/** Node 24's binary from the npm package node@24, and npm itself from the npm registry. */
async function buildNodeBase(engine: ContainerEngine, log: Logger): Promise<void> {
  const context = await mkdtemp(join(tmpdir(), 'node-base-'));
  try {
    const node24 = await locateNode24({ log });
    await copyFile(await realpath(node24.path), join(context, 'node'));
    // Built here from this machine's packages, the base trusts what this machine trusts (a TLS
    // proxy's own CA included), so that npm inside a build reaches the registry as npm here does.
    await copyFile(HOST_CA_BUNDLE, join(context, 'ca-certificates.crt'));
    const { stdout } = await exec('npm', ['pack', `npm@${NPM_VERSION}`, '--pack-destination', context, '--silent'], { maxBuffer: 16 * 1024 * 1024 });
    await rename(join(context, stdout.trim().split('\n').at(-1)!), join(context, 'npm.tgz'));
    await writeFile(join(context, 'Containerfile'), [
      `FROM ${DEBIAN_IMAGE}`,
      'COPY node /usr/local/bin/node',
      'COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt',
      'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt',
      'COPY npm.tgz /tmp/npm.tgz',
      'RUN mkdir -p /usr/local/lib/node_modules/npm && tar -xzf /tmp/npm.tgz -C /usr/local/lib/node_modules/npm --strip-components=1 && rm /tmp/npm.tgz'
        + ' && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx',
      'CMD ["node"]',
      '',
    ].join('\n'));
    log.info('building the Node 24 base image from the Debian image and node@24');
    await buildImage(engine, { tag: NODE_BASE_IMAGE, file: join(context, 'Containerfile'), context });
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}

/** The first Debian mirror this machine's apt uses (deb822 or one-line sources). */
async function debianMirror(): Promise<string> {
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    const uri = /^URIs:\s*(\S+)/m.exec(text)?.[1] ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\b/m.exec(text)?.[1];
    if (uri && !uri.includes('security')) return uri;
  }
  return 'http://deb.debian.org/debian';
}
