// Reads an MCP registry (`/v0.1/servers`) through the guarded fetch: every request passes the
// address guard, every body is size-limited, every entry is validated on its own (a bad one is
// skipped with its reason, the rest of the page still counts). Only allow-listed servers are kept.
import type { RegistryServerEntry } from '../../catalog/registry-config';
import { entryOf, ServerListSchema, ServerResponseSchema, type RegistryEntry } from '../../catalog/server-json';
import { readJsonLimited, type FetchLike } from '../oauth/http';

/** A page of 100 servers is about 300 KB on the official registry; 8 MB is far beyond any honest page. */
export const PAGE_LIMIT_BYTES = 8 * 1024 * 1024;
/** One server.json; the registry's own are a few KB. */
export const ENTRY_LIMIT_BYTES = 1024 * 1024;
/** Pages one sync reads at most (100 entries each): past it the sync is incomplete and keeps its old mark. */
export const MAX_PAGES = 200;

export interface RegistryRead {
  entries: RegistryEntry[];
  /** Allow-listed servers the registry says it does not have (404). */
  missing: string[];
  /** Entries left out, with why (invalid, oversize). */
  skipped: string[];
  /** The newest `updatedAt` seen: the next sync's `updated_since`. */
  highWater: string | null;
  /** False when paging stopped early: the mark must not move then. */
  complete: boolean;
}

export class RegistryReadError extends Error {}

export interface RegistryClient {
  baseUrl: string;
  fetch: FetchLike;
}

/** Everything changed since `updatedSince` (every page), kept to the allow-list and each server's pin. */
export async function readChanges(client: RegistryClient, servers: readonly RegistryServerEntry[], updatedSince: string): Promise<RegistryRead> {
  const wanted = new Map(servers.map((s) => [s.name, s.version]));
  const read: RegistryRead = { entries: [], missing: [], skipped: [], highWater: null, complete: false };
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = new URLSearchParams({ updated_since: updatedSince, limit: '100', ...(cursor ? { cursor } : {}) });
    const body = ServerListSchema.safeParse(await getJson(client, `/v0.1/servers?${query}`, PAGE_LIMIT_BYTES));
    if (!body.success) throw new RegistryReadError(`the registry's list is not a server list: ${body.error.issues[0]?.message}`);
    for (const raw of body.data.servers) {
      // Servers off the allow-list are only read for their time: their faults are not this deployment's.
      const listed = wanted.has(String((raw as { server?: { name?: unknown } })?.server?.name));
      const entry = parseEntry(raw, listed ? read.skipped : []);
      if (!entry) continue;
      if (entry.updatedAt && (!read.highWater || entry.updatedAt > read.highWater)) read.highWater = entry.updatedAt;
      if (!wanted.has(entry.name)) continue;
      const pin = wanted.get(entry.name);
      // A pinned server follows its version only; an unpinned one its latest.
      if (pin ? entry.version === pin : entry.isLatest !== false) read.entries.push(entry);
    }
    cursor = body.data.metadata?.nextCursor || null;
    if (!cursor) return { ...read, complete: true };
  }
  return read;
}

/** Each allow-listed server at its pinned version, or its latest: the first sync, and servers new to the list. */
export async function readServers(client: RegistryClient, servers: readonly RegistryServerEntry[]): Promise<RegistryRead> {
  const read: RegistryRead = { entries: [], missing: [], skipped: [], highWater: null, complete: true };
  for (const server of servers) {
    const path = `/v0.1/servers/${encodeURIComponent(server.name)}/versions/${encodeURIComponent(server.version ?? 'latest')}`;
    let raw: unknown;
    try {
      raw = await getJson(client, path, ENTRY_LIMIT_BYTES, true);
    } catch (err) {
      // One server's bad answer (oversize, not JSON, an error status) leaves the others to sync.
      if (!(err instanceof RegistryReadError)) throw err;
      read.skipped.push(`${server.name}: ${err.message}`);
      continue;
    }
    if (raw === NOT_FOUND) {
      read.missing.push(server.name);
      continue;
    }
    const entry = parseEntry(raw, read.skipped);
    if (!entry) continue;
    if (entry.name !== server.name) {
      read.skipped.push(`${server.name}: the registry answered with another server (${entry.name})`);
      continue;
    }
    read.entries.push(entry);
    if (entry.updatedAt && (!read.highWater || entry.updatedAt > read.highWater)) read.highWater = entry.updatedAt;
  }
  return read;
}

const NOT_FOUND = Symbol('not found');

async function getJson(client: RegistryClient, path: string, limit: number, notFoundOk = false): Promise<unknown> {
  const url = `${client.baseUrl}${path}`;
  const response = await client.fetch(url, { headers: { accept: 'application/json' }, redirect: 'error' });
  if (notFoundOk && response.status === 404) {
    await response.body?.cancel();
    return NOT_FOUND;
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new RegistryReadError(`the registry answered ${response.status} to GET ${path.split('?')[0]}`);
  }
  try {
    return await readJsonLimited(response, limit);
  } catch (err) {
    throw new RegistryReadError(`the registry's answer to GET ${path.split('?')[0]} was refused: ${(err as Error).message}`);
  }
}

function parseEntry(raw: unknown, skipped: string[]): RegistryEntry | null {
  const parsed = ServerResponseSchema.safeParse(raw);
  if (parsed.success) return entryOf(parsed.data);
  const name = (raw as { server?: { name?: unknown } })?.server?.name;
  const issue = parsed.error.issues[0]!;
  const label = typeof name === 'string' ? name.slice(0, 200) : '(unnamed entry)';
  skipped.push(`${JSON.stringify(label)}: ${issue.path.join('.') || '(entry)'} ${issue.message}`);
  return null;
}
