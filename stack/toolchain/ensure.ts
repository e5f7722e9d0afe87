// `tsx stack/toolchain/ensure.ts [--kube] [--helm] [--chromium] [--node24] [--containers]`: makes sure the real
// servers' binaries (and, for the tests, Chromium and Node 24) exist, downloading or building each
// once with visible progress, and prints where each was found. `npm test` runs it before ava so that a
// first install never happens inside a test's timeout.
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../platform/logger';
import { KUBE_BINARIES, locateBinary, planInstalls, SERVER_BINARIES, type BinaryName } from './binaries';
import { describeBuildPlan } from './build-plan';
import { locateChromium } from './chromium';
import { locateContainerEngine } from './container-images';
import { locateNode24 } from './node24';
import { chooseBaseImage, ensureProjectImages } from './project-images';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const FLAGS = ['--kube', '--helm', '--chromium', '--node24', '--containers'];

async function main(argv: string[]): Promise<number> {
  const unknown = argv.filter((arg) => !FLAGS.includes(arg));
  if (unknown.length > 0) {
    process.stderr.write(`usage: tsx stack/toolchain/ensure.ts ${FLAGS.map((f) => `[${f}]`).join(' ')}\nunknown arguments: ${unknown.join(' ')}\n`);
    return 2;
  }
  const names: BinaryName[] = [
    ...SERVER_BINARIES, ...(argv.includes('--kube') ? KUBE_BINARIES : []), ...(argv.includes('--helm') ? ['helm' as const] : []),
  ];
  const log = createLogger('toolchain');
  // Downloads first, for every missing binary; then what is left to build, with its expected
  // time, before the first build starts.
  for (const line of describeBuildPlan(await planInstalls(names, log))) process.stdout.write(`${line}\n`);
  // One at a time: builds are CPU-bound, and running them side by side only makes each slower.
  type Step = () => Promise<readonly [string, { source: string; path: string }]>;
  const steps: Step[] = names.map((name) => () => locateBinary(name, { log, download: false }).then((found) => [name, found] as const));
  if (argv.includes('--chromium')) steps.push(() => locateChromium({ log }).then((found) => ['chromium', found] as const));
  if (argv.includes('--node24')) steps.push(() => locateNode24({ log }).then((found) => ['node24', found] as const));
  if (argv.includes('--containers')) steps.push(() => containers(log));
  for (const step of steps) {
    try {
      const [name, found] = await step();
      process.stdout.write(`${name.padEnd(24)} ${found.source.padEnd(10)} ${found.path}\n`);
    } catch (error) {
      process.stderr.write(`${(error as Error).message}\n`);
      return 1;
    }
  }
  return 0;
}

/**
 * A container engine, the Node base image and the project's own images of this checkout (a first
 * build runs `npm ci` inside for minutes: here, never inside a test's timeout); without an engine
 * the container tests skip, saying why.
 */
async function containers(log: ReturnType<typeof createLogger>): Promise<readonly [string, { source: string; path: string }]> {
  const found = await locateContainerEngine({ log });
  if (!found.engine) return ['containers', { source: 'skipped', path: found.reason }] as const;
  const base = await chooseBaseImage(found.engine, process.env, log);
  const images = await ensureProjectImages(found.engine, {
    root: ROOT, base: base.image, log,
    progress: (role, line) => { if (/STEP \d+\/\d+/.test(line)) log.info(`${role} image: ${line}`); },
  });
  const summary = images.map((i) => `${i.tag} (${i.built ? `built in ${i.seconds.toFixed(0)} s` : 'cached'})`).join(', ');
  return [`containers (${found.engine.program})`, { source: found.source, path: `${base.image}; ${summary}` }] as const;
}

process.exitCode = await main(process.argv.slice(2));
