// GET /api/v1/caller: the request's own caller (contract/caller-record.ts says why it exists).
import type { CallerView } from '../../contract/caller-record';
import { callerOf } from '../caller-middleware';
import type { Handler } from '../router';

export const CALLER_PATH = '/api/v1/caller';

export function callerHandlers(authenticated: boolean): { getCaller: Handler<'getCaller'> } {
  return {
    getCaller(ctx) {
      const caller = callerOf(ctx);
      const view: CallerView = { subject: caller.subject, name: caller.displayName, admin: caller.admin, authenticated };
      ctx.set('Cache-Control', 'no-store');
      ctx.body = view;
    },
  };
}
