// The check that a handler answers only what its operation declares (contract/operations.ts):
// its status, and for problem details their type. In production a stray answer is logged; the
// tests make it fail (test/api/declared-status.test.ts, test/integration/api-lifecycle.test.ts).
import type { Context, Next } from 'koa';
import { OPERATIONS, answersOf, problemTypesOf, type OperationId } from '../contract/operations';

export interface UndeclaredAnswer {
  operation: string;
  status: number;
  /** The problem type slug, when the answer is problem details. */
  problemType: string | null;
}

/** The warning a stray answer is logged with (tests scan the log for it). */
export const UNDECLARED_ANSWER_MESSAGE = 'an answer its operation does not declare';

const PROBLEM_TYPE = /\/problems\/([a-z-]+)$/;

/** The undeclared part of the answer `ctx` holds for `operation`, or null when all is declared. */
export function undeclaredAnswer(operation: OperationId, ctx: Pick<Context, 'status' | 'body'>): UndeclaredAnswer | null {
  const answer = answersOf(OPERATIONS[operation])[ctx.status];
  const type = (ctx.body as { type?: unknown } | null | undefined)?.type;
  const problemType = typeof type === 'string' ? PROBLEM_TYPE.exec(type)?.[1] ?? null : null;
  if (answer && (problemType === null || problemTypesOf(ctx.status, answer).includes(problemType))) return null;
  return { operation, status: ctx.status, problemType };
}

export function declaredStatusCheck(onUndeclared: (answer: UndeclaredAnswer) => void) {
  return async (ctx: Context, next: Next) => {
    await next();
    // Set by the router once an operation matched; earlier refusals (credential, body) are not a handler's.
    const operation = ctx.state.operation as OperationId | undefined;
    if (!operation) return;
    const undeclared = undeclaredAnswer(operation, ctx);
    if (undeclared) onUndeclared(undeclared);
  };
}
