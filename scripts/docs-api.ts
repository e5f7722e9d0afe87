// `npm run docs:api`: writes README's API table from the declarations (api/api-table.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { withApiTable } from '../api/api-table';

const file = new URL('../README.md', import.meta.url);
const before = readFileSync(file, 'utf8');
const after = withApiTable(before);
if (after !== before) writeFileSync(file, after);
console.log(after === before ? 'README.md: the API table is up to date' : 'README.md: the API table was rewritten');
