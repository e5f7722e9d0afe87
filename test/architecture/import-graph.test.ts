// The rooms' dependency rules (README, "Architecture"), checked on the source: each room imports
// only from the rooms listed for it, the workflow sandbox takes only types from activities/, the
// production processes (service/ and the rooms it wires) never import the development stack
// (stack/), the benchmarks reach test/ through one door, and no module imports itself through
// others. No room is exempt.
import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { edgesOf, workflowModules, type Edge } from '../helpers/import-edges';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** What dist/api.mjs, dist/proxy.mjs, dist/worker.mjs and dist/gateway.mjs are built from. */
const PRODUCTION = ['contract', 'platform', 'catalog', 'config', 'gateway', 'store', 'callers', 'activities', 'workflows', 'api', 'proxy', 'service'];

/** Which rooms each room may import from; `types` may be imported for their types only. */
const ALLOWED: Record<string, { values: string[]; types: string[] }> = {
  // The service's contract: states, records, failures, problems, schemas, ids and URLs, the
  // operation table. Pure and sandbox-safe: the one room the workflows may import.
  contract: { values: [], types: [] },
  // Guards and I/O helpers: address guard, guarded fetch, network errors, logger, metrics, secret box.
  platform: { values: ['contract'], types: [] },
  // Presets, the MCP registry's server.json and its mapping to presets.
  catalog: { values: ['contract', 'platform'], types: [] },
  // The configuration's schema, its documentation and reference.
  config: { values: ['contract', 'platform', 'catalog'], types: [] },
  gateway: { values: ['contract', 'platform'], types: [] },
  store: { values: ['contract', 'platform', 'catalog'], types: [] },
  callers: { values: ['contract', 'platform', 'config'], types: [] },
  activities: { values: ['contract', 'platform', 'catalog', 'config', 'store', 'gateway'], types: [] },
  workflows: { values: ['contract'], types: ['activities'] },
  api: { values: ['contract', 'platform', 'catalog', 'config', 'store', 'callers', 'workflows'], types: [] },
  proxy: { values: ['contract', 'platform', 'config', 'callers', 'workflows'], types: [] },
  // The production composition root: entry points, wiring from configuration, the HTTP server,
  // observability, the worker's periodic jobs.
  service: { values: PRODUCTION.filter((room) => room !== 'service'), types: [] },
  // The development stack (embedded supervisor, dev servers, toolchain, build) runs production's parts.
  stack: { values: PRODUCTION, types: [] },
  // One-off developer commands (npm run docs:api), like the stack: production's parts, never the reverse.
  scripts: { values: PRODUCTION, types: [] },
  // The benchmarks run both, and take from test/ only what BENCH_DOOR re-exports.
  bench: { values: [...PRODUCTION, 'stack'], types: [] },
  // Browser code: a client of the public REST API like any other, so nothing of the service's.
  console: { values: [], types: [] },
};
const ROOMS = Object.keys(ALLOWED);
/** The one module of test/ that bench/ may import. */
const BENCH_DOOR = 'test/helpers/for-bench.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [relative(ROOT, path)] : [];
  });
}

const roomOf = (file: string) => file.split('/')[0]!;

/** Why an import breaks the rules, or null when it keeps them. */
function brokenRule({ from, to, typeOnly }: Edge): string | null {
  const [a, b] = [roomOf(from), roomOf(to)];
  if (a === b) return null;
  if (a === 'bench' && b === 'test') return to === BENCH_DOOR ? null : `bench/ imports test/ only through ${BENCH_DOOR}`;
  const rule = ALLOWED[a];
  if (!rule) return `${a}/ is not a room this test governs`;
  if (rule.values.includes(b) || (typeOnly && rule.types.includes(b))) return null;
  return `${a}/ may not import ${b}/${typeOnly ? ' (not even types)' : ''}`;
}

const files = ROOMS.flatMap((room) => sourceFiles(join(ROOT, room)));
const edges = files.flatMap(edgesOf);

test('the source has the rooms and imports this test reads', (t) => {
  t.true(files.length > 100, `found ${files.length} source files`);
  t.true(edges.some((e) => e.from === 'workflows/connector-manager.ts' && e.to === 'contract/connector-states.ts'));
  t.true(edges.some((e) => e.from === 'stack/embedded-roles.ts' && e.to === 'service/roles.ts'));
  t.true(edges.some((e) => e.from === 'activities/workloads/create-runtime.ts' && e.to === 'activities/workloads/kube-runtime.ts'), 'import() is read');
  t.true(edges.some((e) => e.from.startsWith('bench/') && e.to === BENCH_DOOR));
});

test('each room imports only from the rooms it may', (t) => {
  const broken = edges.map((e) => [e, brokenRule(e)] as const).filter(([, why]) => why);
  t.deepEqual(broken.map(([e, why]) => `${e.from} -> ${e.to}: ${why}`), []);
});

test('production never imports the development stack, nor bench/ or test/', (t) => {
  const production = edges.filter((e) => PRODUCTION.includes(roomOf(e.from)));
  t.deepEqual(production.filter((e) => !PRODUCTION.includes(roomOf(e.to))).map((e) => `${e.from} -> ${e.to}`), []);
});

test('bench/ reaches test/ through its one door only', (t) => {
  const intoTests = edges.filter((e) => roomOf(e.from) === 'bench' && roomOf(e.to) === 'test');
  t.deepEqual(intoTests.filter((e) => e.to !== BENCH_DOOR).map((e) => `${e.from} -> ${e.to}`), []);
});

test('the rule refuses the imports it is there to refuse', (t) => {
  const edge = (from: string, to: string, typeOnly = false): Edge => ({ from, to, typeOnly });
  t.regex(brokenRule(edge('service/worker.ts', 'stack/servers/temporal-dev-server.ts')) ?? '', /service\/ may not import stack\//);
  t.regex(brokenRule(edge('proxy/mcp-proxy.ts', 'stack/embedded-stack.ts', true)) ?? '', /not even types/);
  t.regex(brokenRule(edge('config/config.ts', 'service/roles.ts')) ?? '', /config\/ may not import service\//);
  t.regex(brokenRule(edge('bench/scale.ts', 'test/helpers/test-stack.ts')) ?? '', /only through test\/helpers\/for-bench\.ts/);
  t.regex(brokenRule(edge('bench/proxy.ts', 'test/fixtures/jwt-issuer.ts')) ?? '', /only through/);
  t.regex(brokenRule(edge('workflows/connector-manager.ts', 'activities/index.ts')) ?? '', /workflows\/ may not import activities\//);
  t.regex(brokenRule(edge('test/helpers/for-bench.ts', 'stack/build.ts')) ?? '', /not a room/);
  t.is(brokenRule(edge('workflows/activity-proxies.ts', 'activities/index.ts', true)), null);
  t.is(brokenRule(edge('stack/embedded-stack.ts', 'service/roles.ts')), null);
  t.is(brokenRule(edge('bench/scale.ts', BENCH_DOOR)), null);
});

// The workflow sandbox runs contract/ (workflows import nothing else): no Node built-in, no
// package but the pure ones listed, or a workflow would fail at bundling or, worse, at replay.
const SANDBOX_PACKAGES = new Set(['zod']);

test('contract/ is sandbox-safe: no Node built-in, only pure packages', (t) => {
  const outside = files.filter((f) => roomOf(f) === 'contract').flatMap((file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    return [...text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'([^'.][^']*)';/gm)]
      .filter((m) => !m[1] && !SANDBOX_PACKAGES.has(m[2]!))
      .map((m) => `${file} -> ${m[2]}`);
  });
  t.deepEqual(outside, []);
});

// Before the bundle preloaded the workflow code (service/workflow-bundle.ts), the Temporal SDK
// evaluated its modules again for every workflow it cached: a schema library the workflows reached
// cost each cached workflow its own copy. With zod reached through three contract modules a cached workflow
// held 1.4 MB, and npm start's default cache outgrew its heap at about a hundred connectors.
const NOT_IN_WORKFLOWS = new Set(['zod']);

test('the workflows evaluate no schema library, through any module they import', (t) => {
  const modules = workflowModules();
  t.true(modules.includes('contract/connector-states.ts') && modules.includes('contract/approval-policy.ts'), modules.join(', '));
  const packages = modules.flatMap((file) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^(?:import|export)\s+(?!type\s)(?:[^'";]*?\s+from\s+)?'([^'.][^']*)';/gm)]
    .filter((m) => NOT_IN_WORKFLOWS.has(m[1]!)).map((m) => `${file} -> ${m[1]}`));
  t.deepEqual(packages, []);
});

test('every top-level folder of source is a room this test governs', (t) => {
  const IGNORED = new Set(['node_modules', 'dist', 'test', 'docs', 'deploy', '.git', '.data']);
  const folders = readdirSync(ROOT).filter((name) => !name.startsWith('.') && !IGNORED.has(name) && statSync(join(ROOT, name)).isDirectory());
  const ungoverned = folders.filter((name) => !ROOMS.includes(name) && sourceFiles(join(ROOT, name)).length > 0);
  t.deepEqual(ungoverned, []);
});

test('no module imports itself through others', (t) => {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
      return;
    }
    state.set(file, 'open');
    for (const to of next.get(file) ?? []) visit(to, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of files) visit(file, []);
  t.deepEqual(cycles, []);
});
