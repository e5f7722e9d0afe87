// The HTTP server dispatches by the declarations: every operation they give to the proxy (or to the
// server beside koa) reaches its handler with the id from the declared path, under the declared
// route template as its metrics label, whatever the method; every other path reaches koa.
import test from 'ava';
import Koa from 'koa';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { operations } from '../../contract/operations';
import { createMetrics } from '../../platform/metrics';
import { routeTemplate } from '../../contract/public-paths';
import type { McpProxy } from '../../proxy/mcp-proxy';
import type { ToolsetEndpoint } from '../../proxy/toolset/toolset-endpoint';
import { closeServer, createHttpServer, listen } from '../../service/http-server';

const ID = '6f1c2a8e-2b0d-4c55-9a53-0d6c1a2b3c4d';
const LIMITS = { headersTimeoutMs: 60_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000, maxConnections: 100 };

function answering(name: string, seen: string[]) {
  return (req: IncomingMessage, res: ServerResponse, id?: string) => {
    seen.push(`${name} ${req.method} ${id ?? ''}`);
    res.end();
  };
}

test('each operation served beside koa reaches its handler, with its id and its route label; the rest reach koa', async (t) => {
  const seen: string[] = [];
  const api = new Koa();
  api.use((ctx) => {
    seen.push(`api ${ctx.method} ${ctx.path}`);
    ctx.status = 204;
  });
  const proxy = { handle: answering('proxy', seen) } as unknown as McpProxy;
  const toolsets = { handle: answering('toolsets', seen) } as unknown as ToolsetEndpoint;
  const metrics = createMetrics();
  const server = createHttpServer({
    api, proxy, toolsets, metrics, metricsEndpoint: answering('metrics', seen),
    origin: { baseUrl: 'http://127.0.0.1', allowedOrigins: [], authEnabled: false }, limits: LIMITS,
  });
  const port = await listen(server, 0, '127.0.0.1');
  t.teardown(() => closeServer(server));

  const beside = operations().filter(([, op]) => op.servedBy !== 'api');
  t.true(beside.some(([, op]) => op.path.startsWith('/api/v1/toolsets/')), "the toolsets' MCP path is among them");
  for (const [id, op] of operations()) {
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'id' ? ID.toUpperCase() : 'x'));
    seen.length = 0;
    await fetch(`http://127.0.0.1:${port}${path}?q=1`, { method: op.method.toUpperCase() });
    const handler = op.servedBy === 'api' ? 'api' : op.path.includes('/toolsets/') ? 'toolsets' : op.path.includes('/connectors/') ? 'proxy' : 'metrics';
    const expectedId = handler === 'toolsets' ? ID : handler === 'proxy' ? ID.toUpperCase() : '';
    t.deepEqual(seen, [handler === 'api' ? `api ${op.method.toUpperCase()} ${path}` : `${handler} ${op.method.toUpperCase()} ${expectedId}`], id);
  }
  // A method the declarations do not list still reaches the proxy, which answers 405 with Allow.
  seen.length = 0;
  await fetch(`http://127.0.0.1:${port}/api/v1/toolsets/${ID}/mcp/`, { method: 'PUT' });
  t.deepEqual(seen, [`toolsets PUT ${ID}`]);

  const labels = (await metrics.httpRequests.get()).values.map((v) => v.labels.route);
  for (const [, op] of beside) t.true(labels.includes(routeTemplate(op.path)), `${op.path} counted under its template`);
  t.false(labels.some((l) => typeof l === 'string' && l.includes(ID)), 'no id in a label');
});
