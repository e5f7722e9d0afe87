import Router from '@koa/router';
import { publicPreset } from '../../core/presets';
import type { Preset } from '../../core/schemas';

export function presetRoutes(presets: readonly Preset[]): Router {
  const router = new Router();
  const body = { items: presets.map(publicPreset) };
  router.get('/api/v1/connectors/presets', (ctx) => {
    ctx.body = body;
  });
  return router;
}
