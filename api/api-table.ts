// README's API table, rendered from the declarations (contract/operations.ts) and kept in
// README.md between two markers: `npm run docs:api` writes it, test/api/api-table.test.ts fails
// when README's copy differs.
import { BODY_ANSWERS, CALLER_ANSWERS, operations, type Operation } from '../contract/operations';

export const TABLE_START = '<!-- api-table:start -->';
export const TABLE_END = '<!-- api-table:end -->';

interface Row { methods: string[]; path: string; success: string; failures: string }

function pathCell(operation: Operation): string {
  const query = operation.query ? Object.keys(operation.query.shape) : [];
  return query.length ? `${operation.path}?${query.join('&')}` : operation.path;
}

function rowOf(operation: Operation): Row {
  const own = { ...(operation.body ? BODY_ANSWERS : {}), ...operation.responses };
  const statuses = Object.keys(own).map(Number).sort((a, b) => a - b);
  return {
    methods: [operation.method.toUpperCase()],
    path: pathCell(operation),
    success: statuses.filter((s) => s < 400).map((s) => `${s} ${own[s]!.description}`).join('; '),
    failures: statuses.filter((s) => s >= 400).join(', '),
  };
}

/** Operations on one path with the same answers share a row ("POST, GET, DELETE ..."). */
function rows(): Row[] {
  const out: Row[] = [];
  for (const [, operation] of operations()) {
    const row = rowOf(operation);
    const same = out.find((r) => r.path === row.path && r.success === row.success && r.failures === row.failures);
    if (same) same.methods.push(...row.methods);
    else out.push(row);
  }
  return out;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function renderApiTable(): string {
  const callerStatuses = Object.keys(CALLER_ANSWERS).join(', ');
  return [
    '| method and path | success | failures |',
    '|---|---|---|',
    ...rows().map((r) => `| \`${r.methods.join(', ')} ${r.path}\` | ${cell(r.success)} | ${r.failures} |`),
    '',
    `Every REST operation that takes a credential may also answer ${callerStatuses} (no or a bad credential, a foreign`,
    '`Origin`, the owner past its request rate, the identity provider or a dependency unreachable). Failures are',
    'RFC 9457 problem details; the OpenAPI document lists each one\'s problem types (`x-problem-types`).',
  ].join('\n');
}

/** `readme` with the text between the markers replaced by `table`. */
export function withApiTable(readme: string, table = renderApiTable()): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${TABLE_START} ... ${TABLE_END} markers`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${table}\n${readme.slice(end)}`;
}
