// README's API table is the one rendered from the declarations (`npm run docs:api` writes it).
import test from 'ava';
import { readFileSync } from 'node:fs';
import { TABLE_END, TABLE_START, renderApiTable, withApiTable } from '../../api/api-table';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test("README's API table is the one the declarations render (run `npm run docs:api`)", (t) => {
  t.true(readme.includes(TABLE_START) && readme.includes(TABLE_END), 'README.md has the markers');
  t.is(withApiTable(readme), readme);
});

test('a table that drifted from the declarations is noticed', (t) => {
  const drifted = withApiTable(readme, renderApiTable().replace('| 400, 413, 415, 422, 429 |', '| 400, 413, 415, 422 |'));
  t.not(drifted, readme);
  t.is(withApiTable(drifted), readme, 'and rendering again mends it');
});

test('the table lists 429 on create and the MCP path, and every status the MCP path answers', (t) => {
  const table = renderApiTable();
  t.regex(table, /\| `POST \/api\/v1\/connectors` \| [^|]+ \| [^|]*429/);
  t.regex(table, /\| `POST, GET, DELETE \/api\/v1\/connectors\/\{id\}\/mcp` \| [^|]+ \| 400, 401, 403, 404, 405, 409, 413, 429, 502, 503, 504 \|/);
});
