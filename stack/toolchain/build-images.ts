// `npm run images`: builds the service image (localhost/connector-registry:dev), the gateway
// image (localhost/connector-registry-gateway:dev) and the worker's with an engine client
// (localhost/connector-registry-worker:dev) with podman or Docker, without a registry:
// BASE_IMAGE if given, else node:24-slim if already here, else a base made here from Debian
// packages and node@24. Prints each build step as it runs, then the times and sizes.
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../platform/logger';
import { locateContainerEngine } from './container-images';
import { chooseBaseImage, ensureProjectImages } from './project-images';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function main(): Promise<number> {
  const log = createLogger('images');
  const found = await locateContainerEngine({ log });
  if (!found.engine) {
    process.stderr.write(`no container engine: ${found.reason}\n`);
    return 1;
  }
  const started = performance.now();
  const base = await chooseBaseImage(found.engine, process.env, log);
  say(`base image ${base.image} (${base.source}), ready after ${seconds(started)}`);
  const images = await ensureProjectImages(found.engine, {
    root: ROOT, base: base.image, log,
    progress: (role, line) => { if (/^(\[\d+\/\d+\] )?STEP \d+\/\d+|^(COMMIT|Successfully tagged)/.test(line)) say(`${role}: ${line}`); },
  });
  for (const image of images) {
    say(`${image.tag.padEnd(42)} ${image.built ? 'built ' : 'cached'} ${image.seconds.toFixed(1).padStart(6)} s ${(image.bytes / 1e6).toFixed(0).padStart(5)} MB  (${image.digestTag})`);
  }
  say(`done in ${seconds(started)}`);
  return 0;
}

const say = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

process.exitCode = await main();
