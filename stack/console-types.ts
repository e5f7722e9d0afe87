// The console's types of the REST API's answers and bodies, generated from the OpenAPI document
// (api/openapi.ts, itself derived from the schemas the API validates with) by openapi-typescript,
// so that a record's shape is written once. `npm run console:types` writes console/api-types.ts;
// test/console/api-types.test.ts fails when the file and the document drift apart.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { openApiDocument } from '../api/openapi';

export const CONSOLE_TYPES_FILE = fileURLToPath(new URL('../console/api-types.ts', import.meta.url));

const HEADER = `// Generated from the OpenAPI document by \`npm run console:types\` (stack/console-types.ts): do not edit.
// The console reads these through console/types.ts.
`;

export async function consoleTypes(): Promise<string> {
  // The schemas alone: the console names its paths itself (console/api.ts), and the servers entry
  // plays no part in the types.
  const document = { ...openApiDocument('http://localhost'), paths: {} } as unknown as OpenAPI3;
  const ast = await openapiTS(document, { alphabetize: false, exportType: false, silent: true });
  return `${HEADER}${astToString(ast)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(CONSOLE_TYPES_FILE, await consoleTypes());
  process.stdout.write(`wrote ${CONSOLE_TYPES_FILE}\n`);
}
