// The project's own images for the tests that run them: found by the digest of the code they are
// built from (`npm test` builds them in its toolchain step, `npm run images` too), else built here.
// No engine here: the tests say so and skip.
import { fileURLToPath } from 'node:url';
import { detectContainerEngine, type ContainerEngine } from '../../activities/workloads/container-engine';
import type { Logger } from '../../platform/logger';
import { chooseBaseImage, ensureProjectImages, type ProjectImage } from '../../stack/toolchain/project-images';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type ProjectImages =
  | { engine: ContainerEngine; service: ProjectImage; gateway: ProjectImage; worker: ProjectImage }
  | { engine: null; reason: string };

export async function projectImages(log: Logger): Promise<ProjectImages> {
  const engine = await detectContainerEngine();
  if (!engine) return { engine: null, reason: 'neither podman nor Docker answers on this machine' };
  const base = await chooseBaseImage(engine, process.env, log);
  const [service, gateway, worker] = await ensureProjectImages(engine, { root: ROOT, base: base.image, log });
  return { engine, service: service!, gateway: gateway!, worker: worker! };
}
