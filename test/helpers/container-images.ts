// The image of MCP servers the container tests run, built once per content on the project's Node
// base image. No engine here: the tests say so and skip (npm test installs podman where it can).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { detectContainerEngine, type ContainerEngine } from '../../activities/workloads/container-engine';
import type { Logger } from '../../platform/logger';
import { withFileLock } from '../../stack/toolchain/build-lock';
import { cacheRoot } from '../../stack/toolchain/cache-dir';
import { buildImage, ensureNodeBaseImage } from '../../stack/toolchain/container-images';

const CONTEXT = fileURLToPath(new URL('../fixtures/containers/', import.meta.url));
const FILE = `${CONTEXT}servers.Containerfile`;

export type TestImage = { engine: ContainerEngine; image: string } | { engine: null; reason: string };

export async function testServersImage(log: Logger): Promise<TestImage> {
  const engine = await detectContainerEngine();
  if (!engine) return { engine: null, reason: 'neither podman nor Docker answers on this machine' };
  const digest = createHash('sha256').update(readFileSync(FILE)).update(readFileSync(`${CONTEXT}probe-server.mjs`)).digest('hex').slice(0, 12);
  const image = `localhost/connector-registry/test-servers:${digest}`;
  if (await engine.imageExists(image)) return { engine, image };
  const base = await ensureNodeBaseImage(engine, { log });
  await withFileLock(`${cacheRoot()}/test-servers-image.lock`, log, async () => {
    if (await engine.imageExists(image)) return;
    await buildImage(engine, { tag: image, file: FILE, context: CONTEXT, buildArgs: { BASE_IMAGE: base } });
  });
  return { engine, image };
}
