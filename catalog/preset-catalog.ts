// The presets of this deployment: CONNECTOR__PRESETS (source `env`) and the servers synced from an
// MCP registry (source `registry`), env winning over a registry preset with the same URL. A
// registry stdio preset runs only once an admin approved its version.
import { matchKey } from '../contract/connector-url';
import { publicPreset, unrunnableReason, type StdioRuntimeKind } from './presets';
import { registryPreset, type PresetField, type RegistryPreset } from './registry-presets';
import type { RegistryOverlay } from './registry-config';
import type { Preset } from '../contract/schemas';
import type { RegistryEntry } from './server-json';

/** A registry entry as the sync stored it, with the address guard's verdict on its remote URL. */
export interface StoredRegistryEntry extends RegistryEntry {
  refused: string | null;
}

export interface PresetApproval {
  name: string;
  version: string;
  approvedBy: string;
  approvedAt: string;
}

export interface CatalogInput {
  env: readonly Preset[];
  entries: readonly StoredRegistryEntry[];
  overlays: ReadonlyMap<string, RegistryOverlay>;
  approvals: readonly PresetApproval[];
}

export interface CatalogEntry {
  source: 'env' | 'registry';
  /** What connects use; null for a registry preset nothing here can run. */
  preset: Preset | null;
  registry: (RegistryPreset & { approved: boolean }) | null;
}

export function catalogOf(input: CatalogInput): CatalogEntry[] {
  const envKeys = new Set(input.env.map((p) => matchKey(p.url)));
  const approved = new Map(input.approvals.map((a) => [a.name, a.version]));
  const registry = input.entries.filter((e) => e.status !== 'deleted').flatMap((entry): CatalogEntry[] => {
    const mapped = registryPreset(entry, input.overlays.get(entry.name));
    if (entry.refused && mapped.kind === 'remote') Object.assign(mapped, { preset: null, reason: entry.refused });
    if (safeKey(mapped.url) !== null && envKeys.has(safeKey(mapped.url)!)) return [];
    return [{ source: 'registry', preset: mapped.preset, registry: { ...mapped, approved: approved.get(entry.name) === entry.version } }];
  });
  return [...input.env.map((preset): CatalogEntry => ({ source: 'env', preset, registry: null })), ...registry];
}

/** The presets connectors may be created from and matched against. */
export function usablePresets(catalog: readonly CatalogEntry[]): Preset[] {
  return catalog.flatMap((c) => (c.preset ? [c.preset] : []));
}

/** Why a preset may not run yet (a registry stdio preset whose version no admin approved), or null. */
export function approvalRefusal(catalog: readonly CatalogEntry[], url: string): string | null {
  const key = safeKey(url);
  const entry = catalog.find((c) => c.registry && c.preset && safeKey(c.preset.url) === key);
  if (!entry?.registry || entry.registry.kind !== 'stdio' || entry.registry.approved) return null;
  return `the registry preset ${entry.registry.name} ${entry.registry.version} runs only after an admin approved this version (POST /api/v1/connectors/presets/{name}/approve)`;
}

export interface PublicCatalogPreset extends ReturnType<typeof publicPreset> {
  source: 'env' | 'registry';
  version: string | null;
  name?: string;
  deprecated?: boolean;
  approved?: boolean;
  fields?: PresetField[];
}

/** GET /presets: never credentials or env values. */
export function publicCatalogEntry(entry: CatalogEntry, runtime: StdioRuntimeKind): PublicCatalogPreset {
  if (!entry.registry) return { ...publicPreset(entry.preset!, runtime), source: 'env', version: null };
  const r = entry.registry;
  const shown = entry.preset ? publicPreset(entry.preset, runtime) : { url: r.url, metadata: { ...r.metadata }, runnable: false, reason: r.reason ?? 'not runnable' };
  const reason = entry.preset ? registryRuntimeReason(r, runtime) ?? unrunnableReason(entry.preset, runtime) : r.reason;
  return {
    ...shown,
    runnable: reason === null,
    ...(reason === null ? { reason: undefined } : { reason }),
    source: 'registry',
    name: r.name,
    version: r.version,
    ...(r.deprecated ? { deprecated: true } : {}),
    ...(r.kind === 'stdio' ? { approved: r.approved } : {}),
    fields: r.fields,
  };
}

/** npm and PyPI packages fetch their code at start: only the local runtime (with the overlay's word) runs them. */
function registryRuntimeReason(r: RegistryPreset, runtime: StdioRuntimeKind): string | null {
  if ((r.packageKind === 'npm' || r.packageKind === 'pypi') && runtime !== 'local') {
    return `${r.packageKind} packages run on the local runtime only, and this deployment runs stdio servers on the ${runtime} runtime`;
  }
  return null;
}

function safeKey(url: string): string | null {
  try {
    return matchKey(url);
  } catch {
    return null;
  }
}
