// The images are built by steps that this suite runs too: the Dockerfiles may only RUN `npm ci`,
// `npm run build` and `npm ci --omit=dev`, and the final stage's tree (production dependencies
// and dist/) is made here the same way and every role is started from it. Every stage is FROM the
// BASE_IMAGE build argument, whose default is the official Node 24 image; where podman or Docker
// is present the images themselves are built and run too (test/integration/project-images.test.ts).
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { ENTRY_POINTS } from '../../stack/build';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ALLOWED_RUN_STEPS = new Set([
  'npm ci --no-audit --no-fund',
  'npm run build',
  'npm ci --omit=dev --no-audit --no-fund && npm cache clean --force',
]);
let tree: string;

interface Stage { from: string; runs: string[]; user?: string; cmd?: string[]; copies: string[] }
interface Dockerfile { buildArgs: Map<string, string>; stages: Stage[] }

/** The build arguments before the first FROM and the stages of a Dockerfile, enough to hold it to the steps tested here. */
function parse(dockerfile: string): Dockerfile {
  const out: Stage[] = [];
  const buildArgs = new Map<string, string>();
  for (const line of dockerfile.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))) {
    const [instruction, ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (instruction === 'ARG' && out.length === 0) {
      const [name, value = ''] = args.split('=');
      buildArgs.set(name!, value);
    }
    if (instruction === 'FROM') out.push({ from: args, runs: [], copies: [] });
    const stage = out.at(-1)!;
    if (instruction === 'RUN') stage.runs.push(args);
    if (instruction === 'USER') stage.user = args;
    if (instruction === 'CMD') stage.cmd = JSON.parse(args) as string[];
    if (instruction === 'COPY') stage.copies.push(args);
  }
  return { buildArgs, stages: out };
}

test.before(async () => {
  // The final stage: package files, production dependencies only, then dist/ from the build.
  tree = await mkdtemp(join(tmpdir(), 'image-tree-'));
  for (const file of ['package.json', 'package-lock.json']) await cp(join(ROOT, file), join(tree, file));
  await exec('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: tree, maxBuffer: 64 * 1024 * 1024 });
  await cp(join(ROOT, 'dist'), join(tree, 'dist'), { recursive: true });
});

test.after.always(async () => {
  if (tree) await rm(tree, { recursive: true, force: true });
});

for (const file of ['deploy/Dockerfile', 'deploy/gateway.Dockerfile']) {
  test(`${file} runs only the tested steps, on Node 24 (BASE_IMAGE, default node:24-slim), as non-root, a compiled entry point`, async (t) => {
    const { buildArgs, stages: all } = parse(await readFile(join(ROOT, file), 'utf8'));
    t.true(all.length >= 2, 'multi-stage');
    t.is(buildArgs.get('BASE_IMAGE'), 'node:24-slim', 'the official Node image unless the build names another');
    for (const stage of all) {
      t.regex(stage.from, /^\$\{BASE_IMAGE\}(\s|$)/, 'every stage on the base the build argument names');
      for (const run of stage.runs) t.true(ALLOWED_RUN_STEPS.has(run), `untested RUN step: ${run}`);
    }
    const final = all.at(-1)!;
    t.truthy(final.user);
    t.not(final.user?.split(':')[0], '0');
    t.not(final.user, 'root');
    t.true(final.runs.some((r) => r.startsWith('npm ci --omit=dev')), 'the final stage holds production dependencies only');
    t.true(final.copies.some((c) => c.startsWith('--from=build /app/dist')), 'the final stage takes dist/ from the build stage');
    t.is(final.cmd?.[0], 'node');
    const script = final.cmd?.findIndex((arg, i) => i > 0 && !arg.startsWith('--')) ?? -1;
    t.true(final.cmd!.slice(1, script).every((arg) => /^--[\w-]+(=\w+)?$/.test(arg)), 'only node flags before the script');
    const entry = final.cmd?.[script]?.match(/^dist\/(\w+)\.mjs$/)?.[1];
    t.true(entry !== undefined && entry in ENTRY_POINTS, `CMD runs a built entry point: ${final.cmd?.join(' ')}`);
  });
}

// ESM links every static import before any code runs: a role that gets as far as checking its
// configuration has found every module it needs among the production dependencies.
for (const role of Object.keys(ENTRY_POINTS)) {
  test(`dist/${role}.mjs loads from production dependencies alone and checks its configuration`, async (t) => {
    const env = { PATH: process.env.PATH ?? '', HOME: tree, NODE_ENV: 'production' };
    const error = await t.throwsAsync(exec(process.execPath, [join('dist', `${role}.mjs`)], { cwd: tree, env, timeout: 60_000 }));
    const output = `${(error as { stdout?: string }).stdout ?? ''}${(error as { stderr?: string }).stderr ?? ''}`;
    t.false(output.includes('ERR_MODULE_NOT_FOUND'), output);
    t.regex(output, role === 'gateway' ? /invalid gateway configuration/ : /configuration error: CONNECTOR__ENCRYPTION_KEY/);
  });
}
