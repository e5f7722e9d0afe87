// docs/configuration.md, generated: every variable of the configuration schema with its default
// and accepted values read from the schema itself, and its one line of meaning (config-docs.ts).
import type { z } from 'zod';
import { EnvSchema } from './config';
import { OTHER_VARIABLES, SECTION_TITLES, VARIABLE_DOCS, type Section, type VariableDoc } from './config-docs';
import { RENAMED_VARIABLES } from './renamed-variables';

interface Row { name: string; default: string; values: string; meaning: string }

type Def = { type: string; defaultValue?: unknown; innerType?: z.ZodType; in?: z.ZodType; entries?: Record<string, string>; checks?: unknown[]; format?: string };
const defOf = (schema: z.ZodType) => (schema as unknown as { def: Def }).def;

/** What the schema accepts, said briefly. */
function valuesOf(schema: z.ZodType): string {
  const def = defOf(schema);
  if (def.type === 'default' || def.type === 'optional') return valuesOf(def.innerType!);
  if (def.type === 'pipe') return valuesOf(def.in!);
  if (def.type === 'enum') {
    const options = Object.values(def.entries!);
    return options.includes('yes') && options.includes('true') ? '`true` or `false`' : options.map((o) => `\`${o}\``).join(', ');
  }
  if (def.type === 'number') {
    const { minValue, maxValue } = schema as unknown as { minValue: number; maxValue: number };
    return `integer ${minValue.toLocaleString('en-US')}–${maxValue.toLocaleString('en-US')}`;
  }
  if (def.type === 'string' && def.format === 'url') return 'URL';
  return 'text';
}

function defaultOf(schema: z.ZodType, doc: VariableDoc): string {
  if (doc.default) return doc.default;
  const def = defOf(schema);
  if (def.type !== 'default') return '—';
  const value = def.defaultValue;
  return typeof value === 'number' ? String(value) : `\`${String(value)}\``;
}

function rowsBySection(): Map<Section, Row[]> {
  const rows = new Map<Section, Row[]>(Object.keys(SECTION_TITLES).map((s) => [s as Section, []]));
  for (const [name, schema] of Object.entries(EnvSchema.shape) as [keyof typeof VARIABLE_DOCS, z.ZodType][]) {
    const doc = VARIABLE_DOCS[name];
    rows.get(doc.section)!.push({ name, default: defaultOf(schema, doc), values: doc.format ?? valuesOf(schema), meaning: doc.meaning });
  }
  for (const other of OTHER_VARIABLES) {
    rows.get(other.section)!.push({ name: other.name, default: other.default, values: other.format ?? 'text', meaning: other.meaning });
  }
  return rows;
}

const cell = (text: string) => text.replaceAll('|', '\\|');

function table(rows: Row[]): string[] {
  return [
    '| variable | default | values | meaning |',
    '|---|---|---|---|',
    ...rows.map((r) => `| \`${r.name}\` | ${cell(r.default)} | ${cell(r.values)} | ${cell(r.meaning)} |`),
  ];
}

export function renderConfigReference(): string {
  const sections = [...rowsBySection()];
  const [deployment, tuning] = [sections.filter(([s]) => s === 'deployment'), sections.filter(([s]) => s !== 'deployment')];
  const renamed = Object.entries(RENAMED_VARIABLES).map(([old, name]) => `\`${old}\` → \`${name}\``);
  return [
    '# Configuration',
    '',
    '<!-- Generated from config/config.ts and config/config-docs.ts by `npm run docs:config`; do not edit by hand. -->',
    '',
    'Every setting is an environment variable, validated once at start-up: a bad value stops the',
    "process with a message naming the variable. An empty variable counts as unset. The service's",
    'own variables are named `CONNECTOR__X`; a variable another program defines keeps its name',
    "(`PORT`, `HOST`, `BASE_URL`, `DATA_DIR`, `LOG_*`, `MONGODB_*`, Temporal's envconfig, `OTEL_*`, `KUBECONFIG`).",
    '',
    ...deployment.flatMap(([section, rows]) => [`## ${SECTION_TITLES[section]}`, '',
      '`npm start` needs none of these. A deployment of the production entry points (`npm run api`, `proxy`, `worker`)',
      'sets the Temporal address, the MongoDB URI and the key, which they require, and authenticates callers',
      '(an issuer, keys, or both) to listen beyond loopback.', '', ...table(rows), '']),
    '## Tuning',
    '',
    'Defaults fit one machine; docs/scale.md has the measurements behind the memory settings.',
    '',
    ...tuning.filter(([, rows]) => rows.length > 0).flatMap(([section, rows]) => [`### ${SECTION_TITLES[section]}`, '', ...table(rows), '']),
    '## Renamed variables',
    '',
    'The old names still work: the new name wins when both are set, and a process that meets an old',
    'name logs one warning at start naming them all.',
    '',
    ...renamed.map((r) => `- ${r}`),
    '',
  ].join('\n');
}
