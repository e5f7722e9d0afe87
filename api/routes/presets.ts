// GET /api/v1/connectors/presets (env and registry presets, their source, version and whether this
// deployment can run them) and POST /api/v1/connectors/presets/{name}/approve (admins: a registry
// stdio preset runs only once its version is approved).
import Router from '@koa/router';
import { z } from 'zod';
import { callerOf } from '../caller-middleware';
import { jsonBody, parseWith } from '../parse';
import { ProblemError } from '../../core/problem';
import { publicCatalogEntry } from '../../core/preset-catalog';
import type { StdioRuntimeKind } from '../../core/presets';
import type { LiveCatalog } from '../../store/live-catalog';

const ApproveSchema = z.strictObject({
  /** The version the admin looked at; refused when the synced version is another by now. */
  version: z.string().min(1).max(255).optional(),
});

/** `runtime` is asked once, at the first request: finding a container engine takes a process start. */
export function presetRoutes(catalog: LiveCatalog, runtime: () => Promise<StdioRuntimeKind>): Router {
  const router = new Router();
  let kind: Promise<StdioRuntimeKind> | undefined;
  const runtimeKind = () => (kind ??= runtime());

  router.get('/api/v1/connectors/presets', async (ctx) => {
    const [entries, resolved] = await Promise.all([catalog.reload(), runtimeKind()]);
    ctx.body = { items: entries.map((e) => publicCatalogEntry(e, resolved)) };
  });

  // The server name holds a slash: clients send it encoded (%2F), as the registry's own API takes it.
  router.post('/api/v1/connectors/presets/:name/approve', async (ctx) => {
    const caller = callerOf(ctx);
    if (!caller.admin) throw new ProblemError(403, 'only an admin approves registry presets', 'forbidden');
    const body = parseWith(ApproveSchema, jsonBody(ctx), 'request body');
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
  });
  return router;
}
