// This process's view of the preset catalog: CONNECTOR__PRESETS plus the registry entries the sync
// stored, reloaded from the database on demand. `presets` is one array updated in place: the
// activities built at start-up hold it (a preset's credentials and env values are read there,
// never from history), so a reload reaches them without rebuilding the worker.
import {
  approvalRefusal, catalogOf, usablePresets, type CatalogEntry, type PresetApproval,
} from '../catalog/preset-catalog';
import type { RegistryOverlay } from '../catalog/registry-config';
import type { Preset } from '../contract/schemas';
import type { RegistryStore } from './registry-store';

export class LiveCatalog {
  readonly presets: Preset[];
  private entries: CatalogEntry[];

  constructor(
    private readonly env: readonly Preset[],
    private readonly registry: RegistryStore | null,
    private readonly overlays: ReadonlyMap<string, RegistryOverlay | undefined> = new Map(),
  ) {
    this.entries = catalogOf({ env, entries: [], overlays: new Map(), approvals: [] });
    this.presets = usablePresets(this.entries);
  }

  /** The catalog as the database holds it now. */
  async reload(): Promise<readonly CatalogEntry[]> {
    if (!this.registry) return this.entries;
    const [entries, approvals] = await Promise.all([this.registry.list(), this.registry.listApprovals()]);
    const overlays = new Map([...this.overlays].filter((kv): kv is [string, RegistryOverlay] => kv[1] !== undefined));
    this.entries = catalogOf({ env: this.env, entries, overlays, approvals });
    this.presets.splice(0, this.presets.length, ...usablePresets(this.entries));
    return this.entries;
  }

  current(): readonly CatalogEntry[] {
    return this.entries;
  }

  /** Why the preset may not run yet, read fresh: an approval given a moment ago in another process counts. */
  async approvalRefusal(url: string): Promise<string | null> {
    return approvalRefusal(await this.reload(), url);
  }

  async approve(approval: PresetApproval): Promise<void> {
    if (!this.registry) throw new Error('no registry is configured');
    await this.registry.approve(approval);
  }
}
