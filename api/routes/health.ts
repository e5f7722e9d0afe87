// /healthz: the process answers. /readyz: every dependency answers (Temporal, the database),
// each within a short bound so that a hung dependency reads as "not ready", not as a hang.
import { PROBLEM_CONTENT_TYPE, problemBody } from '../../contract/problem';
import type Router from '@koa/router';
import { routerOf, type Handler } from '../router';

export type ReadinessCheck = () => Promise<void>;

const CHECK_TIMEOUT_MS = 2_000;

/** /healthz and /readyz alone, for the processes that serve nothing else of the API. */
export function healthRoutes(checks: Record<string, ReadinessCheck>): Router {
  return routerOf(healthHandlers(checks));
}

export function healthHandlers(checks: Record<string, ReadinessCheck>): { getHealth: Handler<'getHealth'>; getReadiness: Handler<'getReadiness'> } {
  const getHealth: Handler<'getHealth'> = (ctx) => {
    ctx.body = { status: 'ok' };
  };
  const getReadiness: Handler<'getReadiness'> = async (ctx) => {
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
  };
  return { getHealth, getReadiness };
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
