// The workflow code is preloaded into each workflow thread's shared sandbox (service/workflow-bundle.ts):
// every workflow that thread runs uses the same module instances. A module that kept something of
// one workflow's at its top level would hand it to the next, and a replay could then take a path
// its history did not: non-determinism no test of a single workflow would show. So the modules the
// workflows import hold, at their top level, only constants: no `let` or `var`, no `new` (but a
// collection that no module changes in place, or one typed Readonly…), no literal the code changes
// in place, no static field of that kind. The SDK freezes what the modules export, so an exported
// constant changed later throws in the workflow tests; this check covers what a module keeps to
// itself and a collection's contents, which freezing does not reach.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { workflowModules } from '../helpers/import-edges';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Top-level state allowed, each with why sharing it cannot differ between workflows. Keyed by
 * file and name.
 */
const ALLOWED: Record<string, string> = {
  // A cache of a pure function's results (a glob cut into segments), bounded: any workflow that
  // compiles a pattern gets the segments any other would have.
  'contract/glob.ts:compiled': 'memo of a pure function',
};

/** Containers that are constants when nothing changes them in place (checked); any other `new` at the top level is state. */
const COLLECTIONS = new Set(['Set', 'Map', 'WeakSet', 'WeakMap', 'Array']);
const MUTATORS = new Set(['push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin', 'set', 'add', 'delete', 'clear']);

function parse(file: string, text = readFileSync(join(ROOT, file), 'utf8')): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
}

/** Every module the workflow bundle evaluates from this repository, parsed. */
function workflowSources(): Map<string, ts.SourceFile> {
  return new Map(workflowModules().map((file) => [file, parse(file)]));
}

/** The expression under any `as` or `satisfies`. */
function bare(node: ts.Expression | undefined): ts.Expression | undefined {
  while (node && (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isParenthesizedExpression(node))) node = node.expression;
  return node;
}

const isMutableInitializer = (node: ts.Expression | undefined): boolean => {
  const value = bare(node);
  return value !== undefined && (ts.isNewExpression(value) || ts.isArrayLiteralExpression(value) || ts.isObjectLiteralExpression(value));
};

/** Names the module's code changes in place: `name.push(…)`, `name.x = …`, `name[k] = …`, `delete name.x`. */
function mutatedNames(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const target = (node: ts.Expression): string | null => {
    if ((ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) && ts.isIdentifier(node.expression)) return node.expression.text;
    return null;
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ts.isIdentifier(node.expression.expression) && MUTATORS.has(node.expression.name.text)) {
      names.add(node.expression.expression.text);
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
      const name = target(node.left);
      if (name) names.add(name);
    }
    if (ts.isDeleteExpression(node)) {
      const name = target(node.expression);
      if (name) names.add(name);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/** `file:name` of each piece of top-level state the module keeps. */
function topLevelState(file: string, source: ts.SourceFile, mutated = mutatedNames(source)): string[] {
  const found: string[] = [];
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      const constant = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
      for (const declaration of statement.declarationList.declarations) {
        const name = declaration.name.getText(source);
        const initializer = bare(declaration.initializer);
        const readonlyType = declaration.type !== undefined && /^Readonly/.test(declaration.type.getText(source));
        if (!constant) found.push(`${file}:${name} (let or var)`);
        else if (initializer && ts.isNewExpression(initializer) && !readonlyType && !(COLLECTIONS.has(initializer.expression.getText(source)) && !mutated.has(name))) {
          found.push(`${file}:${name} (new ${initializer.expression.getText(source)})`);
        } else if (isMutableInitializer(initializer) && !readonlyType && mutated.has(name)) found.push(`${file}:${name} (changed in place)`);
      }
    }
    if (ts.isClassDeclaration(statement)) {
      for (const member of statement.members) {
        const isStatic = ts.canHaveModifiers(member) && ts.getModifiers(member)?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
        if (isStatic && ts.isPropertyDeclaration(member) && isMutableInitializer(member.initializer)) {
          found.push(`${file}:${statement.name?.text ?? 'class'}.${member.name.getText(source)} (static)`);
        }
      }
    }
  }
  return found;
}

test('the modules the workflows import keep no state at their top level, so one workflow thread can share them', (t) => {
  const modules = workflowSources();
  t.true(modules.has('workflows/connector-manager.ts') && [...modules.keys()].some((file) => file.startsWith('contract/')), 'the walk reached the workflows and the contract they use');
  // A name changed in place in any of them (an import keeps its name here) counts as changed.
  const mutated = new Set([...modules.values()].flatMap((source) => [...mutatedNames(source)]));
  const state = [...modules].flatMap(([file, source]) => topLevelState(file, source, mutated));
  const unexplained = state.filter((entry) => !(entry.replace(/ \(.*$/, '') in ALLOWED));
  t.deepEqual(unexplained, []);
  // Every allowance still names something there: a stale one would hide nothing but mislead.
  for (const key of Object.keys(ALLOWED)) t.true(state.some((entry) => entry.startsWith(`${key} `)), `${key} is still top-level state`);
});

test('the check finds each kind of top-level state', (t) => {
  const source = parse('sample.ts', [
    'let count = 0;',
    'const seen = new Map<string, number>();',
    'const lock = new Mutex();',
    'const kinds: ReadonlySet<string> = new Set(["a"]);',
    'const names = new Set(["a"]);',
    'const order: string[] = [];',
    'const table = { a: 1 };',
    'const fixed = [1, 2];',
    'class Registry { static entries = [] as string[]; static readonly NAME = "r"; }',
    'export function note(id: string) { order.push(id); table.a = 2; seen.set(id, 1); return fixed[0] + (kinds.has(id) || names.has(id) ? 1 : 0); }',
  ].join('\n'));
  t.deepEqual(topLevelState('sample.ts', source), [
    'sample.ts:count (let or var)',
    'sample.ts:seen (new Map)',
    'sample.ts:lock (new Mutex)',
    'sample.ts:order (changed in place)',
    'sample.ts:table (changed in place)',
    'sample.ts:Registry.entries (static)',
  ]);
});
