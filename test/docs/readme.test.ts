// The README stays a newcomer's five minutes: short, the two commands CI relies on, the variables
// a deployment sets (the same set as docs/configuration.md's), the markers the API table is
// generated between, and links that lead somewhere.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { renderConfigReference } from '../../config/config-reference';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(`${ROOT}README.md`, 'utf8');

test('the README fits in 150 lines and holds the two commands, the test command being what .ci/run runs', (t) => {
  t.true(README.split('\n').length <= 150, `${README.split('\n').length} lines`);
  t.regex(README, /^ {4}npm ci && npm start\b/m);
  t.regex(README, /^ {4}npm ci && npm test\b/m);
  t.regex(readFileSync(`${ROOT}.ci/run`, 'utf8'), /^npm test$/m);
});

test('the API table sits between its markers, once', (t) => {
  t.is(README.split('<!-- api-table:start -->').length, 2);
  t.is(README.split('<!-- api-table:end -->').length, 2);
  const table = README.slice(README.indexOf('<!-- api-table:start -->'), README.indexOf('<!-- api-table:end -->'));
  t.regex(table, /^\| `POST \/api\/v1\/connectors` \|/m);
});

test('the variables the README says a deployment sets are those docs/configuration.md puts first', (t) => {
  const block = README.slice(README.indexOf('<!-- deployment-variables:start -->'), README.indexOf('<!-- deployment-variables:end -->'));
  const inReadme = [...block.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]).sort();
  const deployment = renderConfigReference().split('\n## Tuning\n')[0]!;
  const inReference = [...deployment.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]).sort();
  t.true(inReadme.length >= 6 && inReadme.length <= 10, `${inReadme.length} variables`);
  t.deepEqual(inReadme, inReference);
});

test('every link of the README and of docs/ leads to a file of the repository', (t) => {
  const files = ['README.md', ...readdirSync(`${ROOT}docs`).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  for (const file of files) {
    t.true(existsSync(`${ROOT}${file}`), file);
    const text = readFileSync(`${ROOT}${file}`, 'utf8');
    const base = file.includes('/') ? `${ROOT}docs/` : ROOT;
    for (const [, target] of text.matchAll(/\]\(([^)#:]+)(?:#[^)]*)?\)/g)) t.true(existsSync(`${base}${target}`), `${file} → ${target}`);
  }
});
