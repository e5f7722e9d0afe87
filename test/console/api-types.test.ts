// The console's record types are generated from the OpenAPI document (stack/console-types.ts):
// this fails when console/api-types.ts and the document drift apart. Run `npm run console:types`.
import { readFileSync } from 'node:fs';
import test from 'ava';
import { CONSOLE_TYPES_FILE, consoleTypes } from '../../stack/console-types';

test('console/api-types.ts is what the OpenAPI document generates', async (t) => {
  const generated = await consoleTypes();
  t.true(generated.includes('Connector: {') && generated.includes('Toolset: {'), 'the records are in it');
  t.is(readFileSync(CONSOLE_TYPES_FILE, 'utf8'), generated, 'stale: run `npm run console:types`');
});
