// docs/configuration.md is generated from the configuration schema: this fails when the file and
// the schema say different things (run `npm run docs:config` and commit the result), and checks
// that the generated text carries what the schema knows.
import { readFileSync } from 'node:fs';
import test from 'ava';
import { EnvSchema } from '../../config/config';
import { renderConfigReference } from '../../config/config-reference';
import { RENAMED_VARIABLES } from '../../config/renamed-variables';

const DOC = new URL('../../docs/configuration.md', import.meta.url);

test('docs/configuration.md is what the schema generates (npm run docs:config)', (t) => {
  t.is(readFileSync(DOC, 'utf8'), renderConfigReference());
});

test('every variable of the schema has a row, with its default and range from the schema', (t) => {
  const text = renderConfigReference();
  for (const name of Object.keys(EnvSchema.shape)) t.regex(text, new RegExp(`^\\| \`${name}\` \\|`, 'm'), name);
  t.regex(text, /^\| `PORT` \| 8080 \| integer 0–65,535 \|/m);
  t.regex(text, /^\| `CONNECTOR__STDIO_RUNTIME` \| `auto` \| `auto`, `container`, `local`, `kubernetes` \|/m);
  t.regex(text, /^\| `CONNECTOR__AUTH_DISABLED` \| `false` \| `true` or `false` \|/m);
});

test('the variables a deployment sets come first, apart from the tuning, and the old names are listed', (t) => {
  const text = renderConfigReference();
  const [deployment, tuning] = text.split('\n## Tuning\n');
  for (const name of ['BASE_URL', 'TEMPORAL_ADDRESS', 'MONGODB_URI', 'CONNECTOR__ENCRYPTION_KEY', 'CONNECTOR__AUTH_ISSUER', 'CONNECTOR__API_KEYS']) {
    const row = new RegExp(`^\\| \`${name}\` \\|`, 'm');
    t.regex(deployment!, row, name);
    t.notRegex(tuning!, row, name);
  }
  for (const [old, name] of Object.entries(RENAMED_VARIABLES)) t.true(text.includes(`- \`${old}\` → \`${name}\``), old);
});
