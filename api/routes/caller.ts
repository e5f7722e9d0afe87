// GET /api/v1/caller: the request's own caller (core/caller-record.ts says why it exists).
import Router from '@koa/router';
import type { CallerView } from '../../core/caller-record';
import { callerOf } from '../caller-middleware';

export const CALLER_PATH = '/api/v1/caller';

export function callerRoutes(authenticated: boolean): Router {
  const router = new Router();
  router.get(CALLER_PATH, (ctx) => {
    const caller = callerOf(ctx);
    const view: CallerView = { subject: caller.subject, name: caller.displayName, admin: caller.admin, authenticated };
    ctx.set('Cache-Control', 'no-store');
    ctx.body = view;
  });
  return router;
}
