// The rooms' dependency rules (README, "Architecture"), checked on the source: each room imports
// only from the rooms listed for it, the workflow sandbox takes only types from activities/, and
// no module imports itself through others.
import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Which rooms each room may import from; `types` may be imported for their types only. */
const ALLOWED: Record<string, { values: string[]; types: string[] }> = {
  core: { values: [], types: [] },
  gateway: { values: ['core'], types: [] },
  store: { values: ['core'], types: [] },
  callers: { values: ['core'], types: [] },
  activities: { values: ['core', 'store', 'gateway'], types: [] },
  workflows: { values: ['core'], types: ['activities'] },
  api: { values: ['core', 'store', 'callers', 'workflows'], types: [] },
  proxy: { values: ['core', 'callers', 'workflows'], types: [] },
  // Browser code: a client of the public REST API like any other, so nothing of the service's.
  console: { values: [], types: [] },
};
const ROOMS = [...Object.keys(ALLOWED), 'stack'];

interface Edge { from: string; to: string; typeOnly: boolean }

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [relative(ROOT, path)] : [];
  });
}

function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = normalize(join(dirname(from), spec)).replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    try {
      if (statSync(join(ROOT, candidate)).isFile()) return candidate;
    } catch { /* try the next form */ }
  }
  return null;
}

function edgesOf(file: string): Edge[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const pattern = /^(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)';/gm;
  const edges: Edge[] = [];
  for (const match of text.matchAll(pattern)) {
    const to = resolveImport(file, match[3]!);
    if (to) edges.push({ from: file, to, typeOnly: Boolean(match[2]) });
  }
  return edges;
}

const roomOf = (file: string) => file.split('/')[0]!;
const files = ROOMS.flatMap((room) => sourceFiles(join(ROOT, room)));
const edges = files.flatMap(edgesOf);

test('the source has the rooms and imports this test reads', (t) => {
  t.true(files.length > 100, `found ${files.length} source files`);
  t.true(edges.some((e) => e.from === 'workflows/connector-manager.ts' && e.to === 'core/connector-states.ts'));
});

test('each room imports only from the rooms below it', (t) => {
  const broken = edges.filter(({ from, to, typeOnly }) => {
    const [a, b] = [roomOf(from), roomOf(to)];
    if (a === b || a === 'stack') return false;
    const rule = ALLOWED[a]!;
    return !(rule.values.includes(b) || (typeOnly && rule.types.includes(b)));
  });
  t.deepEqual(broken.map((e) => `${e.from} -> ${e.to}${e.typeOnly ? ' (type)' : ''}`), []);
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
