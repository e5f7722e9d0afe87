// The registry sync's side effects as activities, each idempotent: read what changed (through the
// guarded fetch), store it (keyed by server name), and name the connectors whose preset the
// registry deleted. The workflow (workflows/registry-sync.ts) only wires them together.
import net from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../contract/failures';
import { refusalReason, type AddressPolicy } from '../../platform/address-guard';
import { matchKey } from '../../contract/connector-url';
import type { StoredRegistryEntry } from '../../catalog/preset-catalog';
import type { RegistryConfig } from '../../catalog/registry-config';
import { registryPreset } from '../../catalog/registry-presets';
import type { Preset } from '../../contract/schemas';
import type { RegistryEntry } from '../../catalog/server-json';
import type { ConnectorStore } from '../../store/connector-store';
import type { RegistryStore } from '../../store/registry-store';
import type { FetchLike } from '../oauth/http';
import { readChanges, readServers, type RegistryRead } from './registry-client';

export interface RegistryActivityDeps {
  config: RegistryConfig;
  store: RegistryStore;
  connectors: Pick<ConnectorStore, 'idsWithPreset' | 'get'>;
  /** The guarded fetch: the registry and everything it names is untrusted. */
  fetch: FetchLike;
  addressPolicy: AddressPolicy;
  /** CONNECTOR__PRESETS: a registry preset with an env preset's URL is never the connectors' preset. */
  envPresets: readonly Preset[];
  /** Told after each stored sync (the process's preset catalog reloads). */
  onStored?: () => void;
}

export interface FetchedRegistry extends Omit<RegistryRead, 'entries'> {
  entries: StoredRegistryEntry[];
}

export interface WithdrawnConnector {
  connectorId: string;
  reason: string;
}

export function createRegistryActivities(deps: RegistryActivityDeps) {
  const client = { baseUrl: deps.config.url, fetch: deps.fetch };
  return {
    /** The first sync and servers new to the allow-list: each one by name; then what changed since the mark. */
    async registryFetch(): Promise<FetchedRegistry> {
      const [mark, stored] = await Promise.all([deps.store.mark(), deps.store.list()]);
      const known = new Set(stored.map((e) => e.name));
      const fresh = deps.config.servers.filter((s) => mark === null || !known.has(s.name));
      const byName = await readServers(client, fresh);
      const changed = mark === null ? null : await readChanges(client, deps.config.servers.filter((s) => known.has(s.name)), mark);
      const reads = changed ? [byName, changed] : [byName];
      const highWater = reads.map((r) => r.highWater).filter((h): h is string => h !== null).sort().at(-1) ?? null;
      return {
        entries: reads.flatMap((r) => r.entries).map((e) => withGuardVerdict(e, deps.addressPolicy)),
        missing: reads.flatMap((r) => r.missing),
        skipped: reads.flatMap((r) => r.skipped),
        highWater,
        complete: reads.every((r) => r.complete),
      };
    },

    async registryStore(read: FetchedRegistry): Promise<{ stored: number; removed: string[] }> {
      await deps.store.put(read.entries);
      const gone = (await Promise.all(read.missing.map((name) => deps.store.get(name)))).filter((e): e is StoredRegistryEntry => e !== null);
      await deps.store.put(gone.map((e) => ({ ...e, status: 'deleted' as const })));
      const removed = await deps.store.keepOnly(deps.config.servers.map((s) => s.name));
      if (read.complete && read.highWater) {
        const mark = await deps.store.mark();
        if (!mark || read.highWater > mark) await deps.store.setMark(read.highWater);
      }
      deps.onStored?.();
      return { stored: read.entries.length, removed };
    },

    /** Connectors made from a preset the registry deleted that are not disconnected yet. */
    async registryWithdrawn(): Promise<WithdrawnConnector[]> {
      const envKeys = new Set(deps.envPresets.map((p) => matchKey(p.url)));
      const overlays = new Map(deps.config.servers.map((s) => [s.name, s.overlay]));
      const out: WithdrawnConnector[] = [];
      for (const entry of await deps.store.list()) {
        if (entry.status !== 'deleted') continue;
        const url = registryPreset(entry, overlays.get(entry.name)).url;
        if (envKeys.has(safeKey(url))) continue;
        for (const connectorId of await deps.connectors.idsWithPreset(url)) {
          const state = (await deps.connectors.get(connectorId))?.state;
          if (state && state !== 'disconnected' && state !== 'deleting' && state !== 'created') {
            out.push({ connectorId, reason: `the registry deleted ${entry.name} ${entry.version}: its preset is withdrawn` });
          }
        }
      }
      return out;
    },
  };
}

/**
 * A remote whose host is a literal address the guard refuses is stored with that verdict. Names
 * are judged when they are used (create and every request check them as they resolve then):
 * a name resolved at sync time proves nothing about later.
 */
function withGuardVerdict(entry: RegistryEntry, policy: AddressPolicy): StoredRegistryEntry {
  const refused = (entry.server.remotes ?? []).map((r) => literalRefusal(r.url, policy)).find((r) => r !== null) ?? null;
  return { ...entry, refused };
}

function literalRefusal(url: string | undefined, policy: AddressPolicy): string | null {
  if (!url || !URL.canParse(url)) return null;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (!net.isIP(host)) return null;
  const why = refusalReason(host, policy);
  return why ? `its remote URL is refused: ${host} is ${why}` : null;
}

function safeKey(url: string): string {
  try {
    return matchKey(url);
  } catch {
    return url;
  }
}

export type RegistryActivities = ReturnType<typeof createRegistryActivities>;

/** A worker without CONNECTOR__REGISTRY_URL: a schedule left over from another configuration fails plainly. */
export function unconfiguredRegistryActivities(): RegistryActivities {
  const refuse = async (): Promise<never> => {
    throw ApplicationFailure.nonRetryable('no MCP registry is configured on this worker (CONNECTOR__REGISTRY_URL)', FAILURE.unprocessable);
  };
  return { registryFetch: refuse, registryStore: refuse, registryWithdrawn: refuse };
}
