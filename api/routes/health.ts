// /healthz: the process answers. /readyz: every dependency answers (Temporal, the database),
// each within a short bound so that a hung dependency reads as "not ready", not as a hang.
import Router from '@koa/router';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../../core/problem';

export type ReadinessCheck = () => Promise<void>;

const CHECK_TIMEOUT_MS = 2_000;

export function healthRoutes(checks: Record<string, ReadinessCheck>): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const results = await Promise.all(Object.entries(checks).map(async ([name, check]) => [name, await outcome(check)] as const));
    const failing = results.filter(([, ok]) => ok !== 'ok');
    if (failing.length === 0) {
      ctx.body = { status: 'ready', checks: Object.fromEntries(results) };
      return;
    }
    ctx.status = 503;
    ctx.type = PROBLEM_CONTENT_TYPE;
    ctx.body = problemBody(503, `not ready: ${failing.map(([n]) => n).join(', ')} unreachable`, undefined, undefined, {
      checks: Object.fromEntries(results),
    });
  });
  return router;
}

async function outcome(check: ReadinessCheck): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS); }),
    ]);
    return 'ok';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}
