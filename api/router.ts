// The koa router, derived from the declarations (contract/operations.ts): every operation the
// koa app serves is registered in declaration order under its operationId, with the handler of the
// same key. A handler reads its body and query through the schemas its operation declares, and
// the operation rides on ctx.state for the check of answered statuses (api/declared-status.ts).
import Router from '@koa/router';
import type { Context } from 'koa';
import type { z } from 'zod';
import { jsonBody, parseWith, queryObject } from './parse';
import { operations, type OperationId, type Operations } from '../contract/operations';

type BodyOf<O> = O extends { body: { schema: infer S extends z.ZodType } } ? z.output<S> : never;
type QueryOf<O> = O extends { query: infer S extends z.ZodType } ? z.output<S> : never;

/** The request's parts, parsed when asked (a handler decides the order: 404 before 422). */
export interface HandlerInput<O> {
  body(): BodyOf<O>;
  query(): QueryOf<O>;
}

export type Handler<K extends OperationId> = (ctx: Context, input: HandlerInput<Operations[K]>) => unknown;

/** The operations the koa app serves. */
export type ApiOperationId = { [K in OperationId]: Operations[K]['servedBy'] extends 'api' ? K : never }[OperationId];

export type ApiHandlers = { [K in ApiOperationId]: Handler<K> };

/** `/api/v1/connectors/{id}` → `/api/v1/connectors/:id` */
export const koaPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** The router of the whole API: a handler for every operation the koa app serves. */
export function declaredRouter(handlers: ApiHandlers): Router {
  return routerOf(handlers);
}

/** A router of some operations only (the worker's and the proxy's health endpoints). */
export function routerOf(handlers: Partial<ApiHandlers>): Router {
  const router = new Router();
  for (const [id, operation] of operations()) {
    const handler = handlers[id as ApiOperationId] as Handler<ApiOperationId> | undefined;
    if (operation.servedBy !== 'api' || !handler) continue;
    router[operation.method](id, koaPath(operation.path), async (ctx) => {
      ctx.state.operation = id;
      const input = {
        body: () => (operation.body ? parseWith(operation.body.schema, jsonBody(ctx), 'request body') : undefined),
        query: () => (operation.query ? parseWith(operation.query, queryObject(ctx), 'query') : undefined),
      } as HandlerInput<Operations[ApiOperationId]>;
      await handler(ctx, input);
    });
  }
  return router;
}
