// The relative imports of the repository's source, read off the text: what the architecture
// tests walk (the rooms' rules, and the modules the workflow bundle evaluates).
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Edge { from: string; to: string; typeOnly: boolean }

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

export function edgesOf(file: string): Edge[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const pattern = /^(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)';/gm;
  const edges: Edge[] = [];
  for (const match of text.matchAll(pattern)) {
    const to = resolveImport(file, match[3]!);
    if (to) edges.push({ from: file, to, typeOnly: Boolean(match[2]) });
  }
  // Modules loaded on demand (the Kubernetes runtime, the gateway's modern endpoint) count too.
  for (const match of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) {
    const to = resolveImport(file, match[1]!);
    if (to) edges.push({ from: file, to, typeOnly: false });
  }
  return edges;
}

/** The modules the workflow bundle evaluates: what workflows/index.ts reaches through value imports. */
export function workflowModules(): string[] {
  const reached = new Set<string>();
  const visit = (file: string) => {
    if (reached.has(file)) return;
    reached.add(file);
    for (const e of edgesOf(file)) if (!e.typeOnly) visit(e.to);
  };
  visit('workflows/index.ts');
  return [...reached];
}

