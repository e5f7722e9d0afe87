// `npm run docs:config`: writes docs/configuration.md from the configuration schema
// (test/config/config-reference.test.ts fails while the file says something else).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderConfigReference } from '../../config/config-reference';

const target = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
writeFileSync(target, renderConfigReference());
process.stdout.write(`wrote ${target}\n`);
