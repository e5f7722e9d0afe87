// Every path of the service is written once (contract/public-paths.ts, named by the operation table):
// no MCP path, and no RFC 9728 document of one, is written by hand anywhere else in the code the
// service runs. The MCP clients in tests and benchmarks are not the service, and may.
import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ROOMS = ['core', 'api', 'proxy', 'service', 'callers', 'store', 'activities', 'workflows', 'stack', 'console', 'scripts'];
const THE_ONE_PLACE = 'contract/public-paths.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) ? [relative(ROOT, path)] : [];
  });
}

/** The string, template and regular expression literals of `source` (comments taken out first) that name one of the service's MCP paths. */
function mcpPathLiterals(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '').replace(/\s\/\/ .*$/gm, '');
  const literals = code.match(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g) ?? [];
  const strings = literals.filter((l) => /\/mcp\b/.test(l) && /api\/v1|connectors|toolsets|\$\{collection\}/.test(l) || /oauth-protected-resource\/api/.test(l));
  const patterns = code.match(/\/\^?\\\/api\\\/v1\\\/.*?\\\/mcp.*?\/[dgimsuy]*(?=[;,)\s])/g) ?? [];
  return [...strings, ...patterns];
}

test('the check finds the literals it is there to find, and not the gateway\'s own /mcp', (t) => {
  t.deepEqual(mcpPathLiterals("const a = '/api/v1/connectors/{id}/mcp';"), ["'/api/v1/connectors/{id}/mcp'"]);
  t.is(mcpPathLiterals('const b = `${base}/api/v1/${collection}/${id}/mcp`;').length, 1);
  t.is(mcpPathLiterals("const c = `${baseUrl}/.well-known/oauth-protected-resource/api/v1/toolsets/${id}/mcp`;").length, 1);
  t.is(mcpPathLiterals('const e = /^\\/api\\/v1\\/toolsets\\/([0-9a-f-]{36})\\/mcp\\/?$/;').length, 1);
  t.deepEqual(mcpPathLiterals('// the proxy serves /api/v1/connectors/{id}/mcp\nconst d = `http://${host}:${port}/mcp`;'), []);
});

test('no MCP path is written outside contract/public-paths.ts', (t) => {
  const files = ROOMS.flatMap((room) => sourceFiles(join(ROOT, room))).filter((f) => f !== THE_ONE_PLACE);
  t.true(files.length > 200, `read ${files.length} files`);
  const found = files.flatMap((file) => mcpPathLiterals(readFileSync(join(ROOT, file), 'utf8')).map((l) => `${file}: ${l}`));
  t.deepEqual(found, []);
  t.true(mcpPathLiterals(readFileSync(join(ROOT, THE_ONE_PLACE), 'utf8')).length >= 2, 'and they are written there');
});
