import Router from '@koa/router';
import { publicPreset, type StdioRuntimeKind } from '../../core/presets';
import type { Preset } from '../../core/schemas';

/** `runtime` is asked once, at the first request: finding a container engine takes a process start. */
export function presetRoutes(presets: readonly Preset[], runtime: () => Promise<StdioRuntimeKind>): Router {
  const router = new Router();
  let body: Promise<{ items: Array<ReturnType<typeof publicPreset>> }> | undefined;
  router.get('/api/v1/connectors/presets', async (ctx) => {
    body ??= runtime().then((kind) => ({ items: presets.map((p) => publicPreset(p, kind)) }));
    ctx.body = await body;
  });
  return router;
}
