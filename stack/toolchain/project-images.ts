// The project's own images, built without a registry: the service (deploy/Dockerfile, one image
// for the API, proxy and worker roles) and the gateway (deploy/gateway.Dockerfile), on the base
// the user names (BASE_IMAGE), else the official node:24-slim where it is already here, else the
// local base made from Debian packages and node@24. Never a pull: every build is --pull=never.
// Each image is also tagged with a digest of its inputs (the build context as .dockerignore
// leaves it, the Dockerfile, the base image's id), so that a second run with nothing changed
// builds nothing, and a test can ask for exactly the image of the code it runs.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { ContainerEngine } from '../../activities/workloads/container-engine';
import type { Logger } from '../../platform/logger';
import { withFileLock } from './build-lock';
import { cacheRoot } from './cache-dir';
import { buildImage, ensureNodeBaseImage } from './container-images';

export const PROJECT_IMAGES = {
  service: { tag: 'localhost/connector-registry:dev', file: 'deploy/Dockerfile', byDigest: 'localhost/connector-registry/service' },
  gateway: { tag: 'localhost/connector-registry-gateway:dev', file: 'deploy/gateway.Dockerfile', byDigest: 'localhost/connector-registry/gateway' },
  // The worker with an engine's client, made from the service image (its SERVICE_IMAGE argument).
  worker: { tag: 'localhost/connector-registry-worker:dev', file: 'deploy/worker-engine.Dockerfile', byDigest: 'localhost/connector-registry/worker' },
} as const;
export type ProjectImageRole = keyof typeof PROJECT_IMAGES;
/** What `docker pull node:24-slim` leaves in the store, under the names podman and Docker give it. */
const OFFICIAL_BASES = ['docker.io/library/node:24-slim', 'node:24-slim'];

export interface BaseChoice { image: string; source: 'BASE_IMAGE' | 'official' | 'local' }

export interface ProjectImage {
  role: ProjectImageRole;
  tag: string;
  /** The same image under its inputs' digest. */
  digestTag: string;
  built: boolean;
  seconds: number;
  bytes: number;
}

/** BASE_IMAGE if given (it must be here: nothing is pulled), else node:24-slim if here, else the local base. */
export async function chooseBaseImage(engine: ContainerEngine, env: NodeJS.ProcessEnv, log: Logger): Promise<BaseChoice> {
  if (env.BASE_IMAGE) {
    if (!(await engine.imageExists(env.BASE_IMAGE))) throw new Error(`BASE_IMAGE=${env.BASE_IMAGE} is not in ${engine.program}'s image store, and nothing is pulled here`);
    return { image: env.BASE_IMAGE, source: 'BASE_IMAGE' };
  }
  for (const image of OFFICIAL_BASES) if (await engine.imageExists(image)) return { image, source: 'official' };
  return { image: await ensureNodeBaseImage(engine, { log }), source: 'local' };
}

/** The images of the code at `root`: found by their inputs' digest, else built (and tagged :dev either way). */
export async function ensureProjectImages(engine: ContainerEngine, options: {
  root: string; base: string; log: Logger; progress?: (role: ProjectImageRole, line: string) => void;
}): Promise<ProjectImage[]> {
  return withFileLock(join(cacheRoot(), 'project-images.lock'), options.log, async () => {
    const context = await contextDigest(options.root);
    const baseId = (await engine.run(['image', 'inspect', '--format', '{{.Id}}', options.base])).trim();
    const out: ProjectImage[] = [];
    // One after the other: the gateway's build stage is the service's, found in the layer cache,
    // and the worker's image is made from the service's.
    for (const role of Object.keys(PROJECT_IMAGES) as ProjectImageRole[]) {
      const service = out.find((image) => image.role === 'service');
      out.push(await ensureOne(engine, role, { ...options, context, baseId, serviceImage: service?.digestTag }));
    }
    return out;
  });
}

async function ensureOne(engine: ContainerEngine, role: ProjectImageRole, options: {
  root: string; base: string; baseId: string; context: string; serviceImage?: string; progress?: (role: ProjectImageRole, line: string) => void;
}): Promise<ProjectImage> {
  const { tag, file, byDigest } = PROJECT_IMAGES[role];
  const digest = createHash('sha256').update(options.context).update(await readFile(join(options.root, file))).update(options.baseId).digest('hex').slice(0, 16);
  const digestTag = `${byDigest}:${digest}`;
  const started = performance.now();
  const built = !(await engine.imageExists(digestTag));
  if (built) {
    await buildImage(engine, {
      tag: digestTag, alsoTag: [tag], file: join(options.root, file), context: options.root, buildArgs: { BASE_IMAGE: options.base, ...(options.serviceImage ? { SERVICE_IMAGE: options.serviceImage } : {}) },
      progress: options.progress && ((line) => options.progress!(role, line)),
    });
  } else {
    await engine.run(['tag', digestTag, tag]);
  }
  const bytes = Number((await engine.run(['image', 'inspect', '--format', '{{.Size}}', digestTag])).trim());
  return { role, tag, digestTag, built, seconds: (performance.now() - started) / 1000, bytes };
}

/** Every file the build's COPY . . takes, by path and content. Over-inclusion only costs a rebuild. */
async function contextDigest(root: string): Promise<string> {
  const ignored = await dockerignore(root);
  const hash = createHash('sha256');
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const full = join(dir, entry.name);
      const path = relative(root, full);
      if (ignored.some((pattern) => pattern.test(path))) continue;
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) hash.update(path).update('\0').update(await readFile(full)).update('\0');
    }
  };
  await walk(root);
  return hash.digest('hex');
}

/** .dockerignore's patterns, relative to the root (`*` within one path segment): enough for this repository's. */
async function dockerignore(root: string): Promise<RegExp[]> {
  const text = await readFile(join(root, '.dockerignore'), 'utf8').catch(() => '');
  return text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#') && !l.startsWith('!')).map((pattern) => {
    const source = pattern.replace(/^\/+|\/+$/g, '').split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*');
    return new RegExp(`^${source}$`);
  });
}
