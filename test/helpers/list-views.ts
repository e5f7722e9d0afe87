// Every list view of a running service read back and checked against itself and against GET:
// all, by state, by owner (an admin's `created_by`, and each caller's own list), by owner and
// state. For the crash tests: callers with API keys, so that connectors have owners.
import crypto from 'node:crypto';
import { sha256Hex } from '../../callers/api-keys';
import type { ApiCall } from './test-stack';
import { inParallel } from './in-parallel';

const STATES = ['created', 'connecting', 'auth_required', 'connected', 'disconnecting', 'disconnected', 'deleting'];

export interface Callers {
  /** Each caller's `Authorization` header; the last one is an admin. */
  headers: Record<string, string>[];
  admin: Record<string, string>;
  /** CONNECTOR__API_KEYS and what callers being authenticated takes for these tests. */
  env: Record<string, string>;
}

export function keyCallers(subjects: string[]): Callers {
  const keys = [...subjects, 'ops'].map((subject) => ({ subject, key: crypto.randomBytes(16).toString('hex') }));
  const headers = keys.map(({ key }) => ({ authorization: `Bearer ${key}` }));
  return {
    headers,
    admin: headers.at(-1)!,
    env: {
      CONNECTOR__API_KEYS: JSON.stringify(keys.map(({ subject, key }) => ({ subject, sha256: sha256Hex(key), admin: subject === 'ops' }))),
      // The MCP server of these tests is on loopback, which callers being authenticated blocks.
      CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
      CONNECTOR__MAX_CONNECTORS_PER_OWNER: '100000',
      // No stdio server runs here: the local runtime need not isolate them by uid.
      CONNECTOR__STDIO_SINGLE_TENANT: 'true',
      // These tests read every list view of every owner after each cut, faster than the default
      // per-owner limit allows; the limit has tests of its own (test/callers, test/api).
      CONNECTOR__RATE_LIMIT_PER_OWNER: 'off',
    },
  };
}

interface Listed { id: string; state: string; created_by: string | null }

/**
 * Pages through one view (`query`) as `headers`: throws when an item comes twice, when a page's
 * count says it is not exact, or when the count is not the number of items paged through.
 */
async function pageThrough(api: ApiCall, headers: Record<string, string>, query: string): Promise<Listed[]> {
  const items: Listed[] = [];
  const seen = new Set<string>();
  let token: string | null = null;
  let total = -1;
  do {
    const tokenPart: string = token ? `&page_token=${encodeURIComponent(token)}` : '';
    const page = await api('GET', `/api/v1/connectors?limit=7${query}${tokenPart}`, undefined, headers);
    if (page.status !== 200) throw new Error(`list ${query} answered ${page.status}`);
    if (page.body.total_count_exact !== true) throw new Error(`list ${query}: total_count ${page.body.total_count} is not exact yet`);
    total = page.body.total_count;
    for (const item of page.body.items as Listed[]) {
      if (seen.has(item.id)) throw new Error(`list ${query}: ${item.id} is listed twice`);
      seen.add(item.id);
      items.push(item);
    }
    token = page.body.has_more ? page.body.next_page_token : null;
  } while (token);
  if (total !== items.length) throw new Error(`list ${query}: total_count ${total}, ${items.length} items paged through`);
  return items;
}

const ids = (items: Listed[]) => items.map((item) => item.id).sort().join(',');

/**
 * Checks every view; resolves with how many views it read, or throws saying what is wrong.
 * `gone`: connectors that answered 404, which no list may hold.
 */
export async function checkListViews(api: ApiCall, callers: Callers, gone: ReadonlySet<string>): Promise<number> {
  const all = await pageThrough(api, callers.admin, '');
  const states = new Map<string, string>();
  await inParallel(all, 6, async (item) => {
    if (gone.has(item.id)) throw new Error(`${item.id} answered 404 before and is listed again`);
    const record = await api('GET', `/api/v1/connectors/${item.id}`, undefined, callers.admin);
    if (record.status !== 200 || record.body.state !== item.state) throw new Error(`${item.id} is listed as ${item.state}, GET answers ${record.status} ${record.body?.state}`);
    states.set(item.id, item.state);
  });
  const owners = [...new Set(all.map((item) => item.created_by))].filter((owner): owner is string => owner !== null);
  const views: [string, Record<string, string>, (item: Listed) => boolean][] = [
    ...STATES.map((state): [string, Record<string, string>, (item: Listed) => boolean] => [`&state=${state}`, callers.admin, (item) => item.state === state]),
    ...owners.flatMap((owner) => [undefined, ...STATES].map((state): [string, Record<string, string>, (item: Listed) => boolean] => [
      `&created_by=${encodeURIComponent(owner)}${state ? `&state=${state}` : ''}`, callers.admin,
      (item) => item.created_by === owner && (state === undefined || item.state === state),
    ])),
  ];
  await inParallel(views, 4, async ([query, headers, belongs]) => {
    const items = await pageThrough(api, headers, query);
    const expected = all.filter(belongs);
    if (ids(items) !== ids(expected)) throw new Error(`list ${query} holds ${ids(items)}, the full list says ${ids(expected)}`);
    for (const item of items) if (states.get(item.id) !== item.state) throw new Error(`list ${query}: ${item.id} is ${item.state}, GET said ${states.get(item.id)}`);
  });
  // Each caller's own list is the admin's view of its owner.
  for (const headers of callers.headers.slice(0, -1)) {
    const own = await pageThrough(api, headers, '');
    const owner = own[0]?.created_by;
    if (own.some((item) => item.created_by !== owner)) throw new Error('a caller\'s own list holds another owner\'s connector');
    if (owner !== undefined && ids(own) !== ids(all.filter((item) => item.created_by === owner))) throw new Error(`${owner}'s own list is not the admin's view of it`);
  }
  return views.length + callers.headers.length;
}
