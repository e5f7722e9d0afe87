// The proxy sends a managed workload's gateway secret on every request to it, and never a
// caller's: the header is the route's alone. Against a real gateway (with its secret) serving a
// real stdio server, and a recording server to see exactly what arrives.
import { randomBytes } from 'node:crypto';
import anyTest, { type TestFn } from 'ava';
import { GATEWAY_SECRET_HEADER } from '../../contract/gateway-secret';
import { startGateway, type Gateway } from '../../gateway/start-gateway';
import { staticRoutes } from '../../proxy/static-routes';
import { startRecordingMcpServer, type RecordingMcpServer } from '../fixtures/recording-mcp-server';
import { everythingSource, quietLogger } from '../gateway/support/stdio-servers';
import { connectClient, startProxy, type ProxyHarness } from './proxy-harness';

const SECRET = randomBytes(32).toString('base64url');
const test = anyTest as TestFn<{ gateway: Gateway; upstream: RecordingMcpServer; proxy: ProxyHarness }>;

test.before(async (t) => {
  const gateway = await startGateway({ source: everythingSource(), port: 0, logger: quietLogger, secret: SECRET });
  const upstream = await startRecordingMcpServer();
  const proxy = await startProxy(staticRoutes({
    managed: { kind: 'connected', target: gateway.url, gatewaySecret: SECRET },
    // The same gateway, reached by a route that has no secret: only a caller could bring one.
    bare: { kind: 'connected', target: gateway.url },
    recordedManaged: { kind: 'connected', target: upstream.url, gatewaySecret: SECRET },
    recordedRemote: { kind: 'connected', target: upstream.url },
  }));
  t.context = { gateway, upstream, proxy };
});

test.after.always(async (t) => {
  await t.context.proxy?.close();
  await t.context.upstream?.close();
  await t.context.gateway?.close();
});

const forged = { requestInit: { headers: { [GATEWAY_SECRET_HEADER]: 'forged-by-the-caller' } } };

test.serial('a workload route reaches its gateway: the proxy adds the secret, a real MCP client is served', async (t) => {
  const { client } = await connectClient(t.context.proxy.mcpUrl('managed'), forged);
  t.true((await client.listTools()).tools.some((tool) => tool.name === 'echo'));
  await client.close();
});

test.serial("a caller's own gateway-secret header never crosses the proxy, not even the right secret", async (t) => {
  const withSecret = { requestInit: { headers: { [GATEWAY_SECRET_HEADER]: SECRET } } };
  const sessions = t.context.gateway.sessions().length;
  await t.throwsAsync(connectClient(t.context.proxy.mcpUrl('bare'), withSecret));
  t.is(t.context.gateway.sessions().length, sessions, 'the gateway opened no session for it');
});

test.serial('what arrives upstream: the route secret in place of the forged one, and none for a remote server', async (t) => {
  const { upstream, proxy } = t.context;
  for (const id of ['recordedManaged', 'recordedRemote']) {
    const { client, transport } = await connectClient(proxy.mcpUrl(id), forged);
    await client.listTools();
    const seen = upstream.requests.filter((r) => r.headers['mcp-session-id'] === transport.sessionId);
    t.true(seen.length > 0);
    const expected = id === 'recordedManaged' ? SECRET : undefined;
    for (const request of seen) t.is(request.headers[GATEWAY_SECRET_HEADER], expected, id);
    await client.close();
  }
});
