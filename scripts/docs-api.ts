// `npm run docs:api`: writes README's API table (api/api-table.ts) and the chart's Ingress paths
// (api/ingress-paths.ts) from the declarations.
import { readFileSync, writeFileSync } from 'node:fs';
import { withApiTable } from '../api/api-table';
import { INGRESS_PATHS_FILE, renderIngressPaths } from '../api/ingress-paths';

rewrite('README.md', (before) => withApiTable(before), 'the API table');
rewrite(INGRESS_PATHS_FILE, () => renderIngressPaths(), "the Ingress's proxy paths");

function rewrite(path: string, render: (before: string) => string, what: string): void {
  const file = new URL(`../${path}`, import.meta.url);
  const before = readFileSync(file, { encoding: 'utf8', flag: 'a+' });
  const after = render(before);
  if (after !== before) writeFileSync(file, after);
  console.log(`${path}: ${what} ${after === before ? 'is up to date' : 'was rewritten'}`);
}
