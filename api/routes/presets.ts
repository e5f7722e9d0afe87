// GET /api/v1/connectors/presets (env and registry presets, their source, version and whether this
// deployment can run them) and POST /api/v1/connectors/presets/{name}/approve (admins: a registry
// stdio preset runs only once its version is approved).
import { callerOf } from '../caller-middleware';
import { ProblemError } from '../../contract/problem';
import { publicCatalogEntry } from '../../catalog/preset-catalog';
import type { StdioRuntimeKind } from '../../catalog/presets';
import type { LiveCatalog } from '../../store/live-catalog';
import type { Handler } from '../router';

/** `runtime` is asked once, at the first request: finding a container engine takes a process start. */
export function presetHandlers(catalog: LiveCatalog, runtime: () => Promise<StdioRuntimeKind>): { listPresets: Handler<'listPresets'>; approvePreset: Handler<'approvePreset'> } {
  let kind: Promise<StdioRuntimeKind> | undefined;
  const runtimeKind = () => (kind ??= runtime());
  return {
    async listPresets(ctx) {
      const [entries, resolved] = await Promise.all([catalog.reload(), runtimeKind()]);
      ctx.body = { items: entries.map((e) => publicCatalogEntry(e, resolved)) };
    },

    // The server name holds a slash: clients send it encoded (%2F), as the registry's own API takes it.
    async approvePreset(ctx, input) {
      const caller = callerOf(ctx);
      if (!caller.admin) throw new ProblemError(403, 'only an admin approves registry presets', 'forbidden');
      const body = input.body();
      const name = String(ctx.params.name ?? '');
      const entry = (await catalog.reload()).find((e) => e.registry?.name === name);
      if (!entry?.registry) throw new ProblemError(404, 'no registry preset has this name');
      if (entry.registry.kind !== 'stdio') throw new ProblemError(409, 'only registry stdio presets need an approval', 'not-approvable');
      if (body.version && body.version !== entry.registry.version) {
        throw new ProblemError(409, `the synced version is ${entry.registry.version}, not ${body.version}`, 'version-changed');
      }
      await catalog.approve({ name, version: entry.registry.version, approvedBy: caller.subject ?? 'api', approvedAt: new Date().toISOString() });
      const approved = (await catalog.reload()).find((e) => e.registry?.name === name)!;
      ctx.body = publicCatalogEntry(approved, await runtimeKind());
    },
  };
}
