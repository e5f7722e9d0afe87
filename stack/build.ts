// `npm run build`: the production entry points compiled to JavaScript in dist/ (what the images
// run, and what the production-split tests start), and the workflow bundle made once here rather
// than by webpack at every worker start. Dependencies stay external: dist/ runs against the
// node_modules of `npm ci --omit=dev`.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildConsole } from './build-console';
import { bundleWorkflows } from '../service/bundle-workflows';
import { workflowBundleName } from '../service/workflow-bundle';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST = join(ROOT, 'dist');
/** dist/<name>.mjs for each production entry point; one image runs any of them. */
export const ENTRY_POINTS = {
  worker: 'service/worker.ts',
  api: 'service/api.ts',
  proxy: 'service/proxy.ts',
  gateway: 'gateway/main.ts',
} as const;
/** Built beside them for `npm start`, which runs the compiled stack: tsx would hold about 100 MB more. */
export const LOCAL_ENTRY_POINTS = { embedded: 'stack/embedded.ts' } as const;
const ALL_ENTRY_POINTS = { ...ENTRY_POINTS, ...LOCAL_ENTRY_POINTS };

async function main(): Promise<void> {
  const started = Date.now();
  await rm(DIST, { recursive: true, force: true });
  await mkdir(DIST, { recursive: true });
  await build({
    entryPoints: Object.fromEntries(Object.entries(ALL_ENTRY_POINTS).map(([name, path]) => [name, join(ROOT, path)])),
    outdir: DIST,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // Code loaded with import() gets a file of its own, so that it stays unloaded until needed
    // (the Kubernetes client, the OTLP exporters).
    splitting: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    sourcemap: true,
    logLevel: 'warning',
  });
  // Beside dist/worker.mjs, where the worker looks for them (service/worker-runtime.ts).
  const bundles = [false, true].map((traced) => workflowBundleName(traced));
  for (const traced of [false, true]) await writeFile(join(DIST, workflowBundleName(traced)), await bundleWorkflows(traced));
  await buildConsole(ROOT, DIST);
  const built = [...Object.keys(ALL_ENTRY_POINTS).map((n) => `${n}.mjs`), ...bundles, 'console/'].map((n) => `dist/${n}`);
  process.stdout.write(`built ${built.join(', ')} in ${Date.now() - started} ms\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
