// The declarations (contract/operations.ts) are what the service serves and documents: the
// koa router registers exactly the operations the koa app serves, the OpenAPI document has every
// operation with exactly its declared statuses, and a handler that answers a status (or a problem
// type) its declaration does not list is noticed. The real app is driven through the error cases
// it answers before it needs Temporal or the database; those parts are stand-ins that fail the
// test if touched (test/integration/api-lifecycle.test.ts drives the rest against the real stack).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import Koa from 'koa';
import type Router from '@koa/router';
import { createApi, type ApiDeps } from '../../api/app';
import { declaredStatusCheck, type UndeclaredAnswer } from '../../api/declared-status';
import { openApiDocument } from '../../api/openapi';
import { problemMiddleware } from '../../api/problem-middleware';
import { koaPath, routerOf } from '../../api/router';
import { answersOf, operations } from '../../contract/operations';
import { createAuthenticator } from '../../callers/authenticator';
import { createLogger } from '../../platform/logger';
import { ProblemError } from '../../contract/problem';

const logger = createLogger('declared-routes-test', 'silent');

/** Fails the test when anything reaches for Temporal or the database. */
const unreachable = (what: string) => new Proxy({}, {
  get: (_, key) => (key === 'then' ? undefined : () => { throw new Error(`${what}.${String(key)} was called`); }),
});

function app(onUndeclaredAnswer: (answer: UndeclaredAnswer) => void): Koa {
  return createApi({
    commands: unreachable('commands'), store: unreachable('store'), callStore: unreachable('callStore'),
    temporal: unreachable('temporal'), oauthStore: unreachable('oauthStore'), secrets: unreachable('secrets'),
    presets: [], stdioRuntime: async () => 'local', addressPolicy: { blockPrivateNetworks: false },
    baseUrl: 'http://127.0.0.1:1', bodyLimit: '1mb', allowedRedirectOrigins: null,
    readiness: { database: async () => { throw new Error('down'); } }, logger,
    authenticator: createAuthenticator({ enabled: false, apiKeys: [], jwt: null }, fetch), issuer: null, maxConnectorsPerOwner: 100,
    onUndeclaredAnswer,
  } as unknown as ApiDeps);
}

async function serve(t: ExecutionContext, koa: Koa): Promise<string> {
  const server = http.createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('the router registers exactly the operations the koa app serves, in declaration order', (t) => {
  const koa = app(() => undefined);
  const router = (koa.middleware.find((m) => 'router' in m) as unknown as { router: Router }).router;
  const registered = router.stack.map((layer) => `${layer.name} ${layer.methods.filter((m) => m !== 'HEAD').join(',')} ${layer.path}`);
  const declared = operations().filter(([, o]) => o.servedBy === 'api').map(([id, o]) => `${id} ${o.method.toUpperCase()} ${koaPath(o.path)}`);
  t.deepEqual(registered, declared);
});

test('the OpenAPI document has every declared operation with exactly its statuses, and nothing else', (t) => {
  const document = openApiDocument('http://127.0.0.1:1');
  const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item)
    .filter(([key]) => key !== 'parameters').map(([method, op]) => ({ path, method, op: op as { operationId: string; responses: object } })));
  t.is(documented.length, operations().length);
  for (const [id, operation] of operations()) {
    const found = documented.find((d) => d.path === operation.path && d.method === operation.method);
    t.is(found?.op.operationId, id);
    t.deepEqual(Object.keys(found?.op.responses ?? {}).sort(), Object.keys(answersOf(operation)).sort(), id);
  }
  const mcp = document.paths['/api/v1/connectors/{id}/mcp'] as Record<string, { responses: object }>;
  t.deepEqual(Object.keys(mcp.post!.responses).map(Number), [200, 202, 400, 401, 403, 404, 405, 409, 413, 429, 502, 503, 504]);
  t.true('429' in (document.paths['/api/v1/connectors'] as Record<string, { responses: object }>).post!.responses);
});

test('the real app answers its error cases with declared statuses and problem types only', async (t) => {
  const undeclared: UndeclaredAnswer[] = [];
  const base = await serve(t, app((answer) => undeclared.push(answer)));
  const call = async (method: string, path: string, body?: string, type = 'application/json') => {
    const res = await fetch(base + path, { method, body, headers: body === undefined ? {} : { 'content-type': type }, redirect: 'manual' });
    await res.arrayBuffer();
    return res.status;
  };
  const cases: Array<[string, string, number, string?, string?]> = [
    ['GET', '/healthz', 200], ['GET', '/readyz', 503], ['GET', '/api/v1/openapi.json', 200], ['GET', '/api/v1/connectors/presets', 200],
    ['POST', '/api/v1/connectors', 422, '{"url":"ftp://x"}'], ['POST', '/api/v1/connectors', 415, 'url', 'text/plain'],
    ['POST', '/api/v1/connectors', 422, '{"url":"mcp+stdio://nothing"}'],
    ['GET', '/api/v1/connectors?limit=0', 422], ['GET', '/api/v1/connectors?limit=1&limit=2', 422],
    ['GET', '/api/v1/connectors/not-an-id', 404], ['DELETE', '/api/v1/connectors/not-an-id', 404],
    ['POST', '/api/v1/connectors/not-an-id/connect', 404, '{}'], ['POST', '/api/v1/connectors/not-an-id/disconnect', 404],
    ['GET', '/api/v1/connectors/not-an-id/events', 404], ['GET', '/api/v1/connectors/not-an-id/calls', 404],
    ['GET', '/api/v1/oauth/client-metadata.json', 404], ['GET', '/.well-known/oauth-protected-resource/api/v1/connectors/x/mcp', 404],
    ['GET', '/api/v1/connectors/oauth/authorize', 400], ['GET', '/api/v1/connectors/oauth/callback', 400],
  ];
  for (const [method, path, status, body, type] of cases) t.is(await call(method, path, body, type), status, `${method} ${path}`);
  t.deepEqual(undeclared, []);
});

test('a handler answering a status or a problem type its declaration does not list is noticed', async (t) => {
  const undeclared: UndeclaredAnswer[] = [];
  const koa = new Koa();
  koa.silent = true;
  koa.use(declaredStatusCheck((answer) => undeclared.push(answer)));
  koa.use(problemMiddleware(logger));
  const router = routerOf({
    getHealth: (ctx) => { ctx.status = 418; ctx.body = { teapot: true }; },
    getReadiness: () => { throw new ProblemError(503, 'down', 'not-declared-here'); },
    getOpenApi: () => { throw new ProblemError(404, 'declared nowhere for this operation'); },
    listPresets: (ctx) => { ctx.body = { items: [] }; },
  });
  koa.use(router.routes());
  const base = await serve(t, koa);
  for (const path of ['/healthz', '/readyz', '/api/v1/openapi.json', '/api/v1/connectors/presets']) await (await fetch(base + path)).arrayBuffer();
  t.deepEqual(undeclared, [
    { operation: 'getHealth', status: 418, problemType: null },
    { operation: 'getReadiness', status: 503, problemType: 'not-declared-here' },
    { operation: 'getOpenApi', status: 404, problemType: 'not-found' },
  ], 'the declared answer of listPresets passes');
});
