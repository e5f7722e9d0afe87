// The presets of this deployment: CONNECTOR__PRESETS (source `env`) and the servers synced from an
// MCP registry (source `registry`), env winning over a registry preset with the same URL. A
// registry stdio preset runs only once an admin approved what it runs (registry-approval.ts): its
// version and its run's digest, until a sync finds either changed.
import { matchKey } from '../contract/connector-url';
import { publicPreset, unrunnableReason, type StdioRuntimeKind } from './presets';
import { registryPreset, type PresetField, type RegistryPreset } from './registry-presets';
import { presetInputFields } from './connect-inputs';
import { runChanges, type PresetRun } from './registry-approval';
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
  /** The run's digest and the run itself as the admin approved it (what changed is told against it). */
  digest: string;
  run: PresetRun;
  approvedBy: string;
  approvedAt: string;
  /** Set by the sync that found the version or the run changed: the approval no longer counts, even if the registry changes back. */
  clearedAt?: string;
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
  registry: (RegistryPreset & ApprovalState) | null;
}

export interface ApprovalState {
  approved: boolean;
  /** The approval this preset had, when it no longer counts: what changed since, in words. */
  changes: string[];
  approval: Pick<PresetApproval, 'approvedBy' | 'approvedAt' | 'version' | 'digest'> | null;
}

export function catalogOf(input: CatalogInput): CatalogEntry[] {
  const envKeys = new Set(input.env.map((p) => matchKey(p.url)));
  const approvals = new Map(input.approvals.map((a) => [a.name, a]));
  const registry = input.entries.filter((e) => e.status !== 'deleted').flatMap((entry): CatalogEntry[] => {
    const mapped = registryPreset(entry, input.overlays.get(entry.name));
    if (entry.refused && mapped.kind === 'remote') Object.assign(mapped, { preset: null, reason: entry.refused });
    if (safeKey(mapped.url) !== null && envKeys.has(safeKey(mapped.url)!)) return [];
    return [{ source: 'registry', preset: mapped.preset, registry: { ...mapped, ...approvalState(mapped, approvals.get(entry.name)) } }];
  });
  return [...input.env.map((preset): CatalogEntry => ({ source: 'env', preset, registry: null })), ...registry];
}

/**
 * Whether the approval on record covers what the preset runs now: the same version, the same
 * run digest, not cleared by a sync, and a run this deployment can start. Otherwise, what changed.
 */
export function approvalState(preset: RegistryPreset, approval: PresetApproval | undefined): ApprovalState {
  if (!approval) return { approved: false, changes: [], approval: null };
  const { approvedBy, approvedAt, version, digest } = approval;
  const covers = !approval.clearedAt && version === preset.version && digest === preset.digest && preset.preset !== null;
  if (covers) return { approved: true, changes: [], approval: { approvedBy, approvedAt, version, digest } };
  return { approved: false, changes: changesSince(approval, preset), approval: { approvedBy, approvedAt, version, digest } };
}

/** What differs from the approved run, in words (empty when nothing the registry serves changed). */
export function changesSince(approval: PresetApproval, preset: RegistryPreset): string[] {
  const changes = version(approval, preset);
  if (preset.run && approval.run) changes.push(...runChanges(approval.run, preset.run));
  else if (!preset.run) changes.push('it no longer names a package to run');
  if (!preset.preset && preset.reason) changes.push(`it cannot run here: ${preset.reason}`);
  return changes;
}

function version(approval: PresetApproval, preset: RegistryPreset): string[] {
  return approval.version === preset.version ? [] : [`version: ${approval.version} → ${preset.version}`];
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
  const changed = entry.registry.changes.length ? ` (what it runs changed since the last approval: ${entry.registry.changes.join('; ')})` : '';
  return `the registry preset ${entry.registry.name} ${entry.registry.version} runs only after an admin approved this version${changed} (POST /api/v1/connectors/presets/{name}/approve)`;
}

export interface PublicCatalogPreset extends ReturnType<typeof publicPreset> {
  source: 'env' | 'registry';
  version: string | null;
  name?: string;
  deprecated?: boolean;
  approved?: boolean;
  fields?: PresetField[];
  run?: PresetRun;
  digest?: string;
  changes?: string[];
  approved_by?: string;
  approved_at?: string;
}

/** GET /presets: never credentials or env values. */
export function publicCatalogEntry(entry: CatalogEntry, runtime: StdioRuntimeKind): PublicCatalogPreset {
  if (!entry.registry) {
    const fields = presetInputFields(entry.preset!);
    return { ...publicPreset(entry.preset!, runtime), source: 'env', version: null, ...(fields.length ? { fields } : {}) };
  }
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
    ...(r.kind === 'stdio' ? approvalView(r) : {}),
  };
}

/** What an admin approves: what will run, its digest, and against the last approval what changed. */
function approvalView(r: RegistryPreset & ApprovalState) {
  return {
    ...(r.run ? { run: r.run } : {}),
    ...(r.digest ? { digest: r.digest } : {}),
    ...(r.changes.length ? { changes: r.changes } : {}),
    ...(r.approval && r.approved ? { approved_by: r.approval.approvedBy, approved_at: r.approval.approvedAt } : {}),
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
