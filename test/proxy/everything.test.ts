// The reference MCP server (@modelcontextprotocol/server-everything, Streamable HTTP mode, its own
// process) behind the proxy, driven by the SDK client.
import anyTest, { type TestFn } from 'ava';
import { staticRoutes } from '../../proxy/static-routes';
import { startEverythingServer, type EverythingServer } from '../fixtures/everything-server';
import { connectClient, startProxy, type ProxyHarness } from './proxy-harness';

const test = anyTest as TestFn<{ everything: EverythingServer; proxy: ProxyHarness }>;

test.before(async (t) => {
  const everything = await startEverythingServer();
  const proxy = await startProxy(staticRoutes({ everything: { kind: 'connected', target: everything.url, token: 'token' } }));
  t.context = { everything, proxy };
});

test.after.always(async (t) => {
  await t.context.proxy?.close();
  await t.context.everything?.stop();
});

test('lists tools and calls echo through the proxy', async (t) => {
  const { client, transport } = await connectClient(t.context.proxy.mcpUrl('everything'));
  t.truthy(transport.sessionId);
  const { tools } = await client.listTools();
  t.true(tools.some((tool) => tool.name === 'echo'));
  const result = await client.callTool({ name: 'echo', arguments: { message: 'through the proxy' } });
  t.regex((result.content as { text: string }[])[0]!.text, /through the proxy/);
  await transport.terminateSession();
  await client.close();
});

test('streams the progress of a long-running operation before its result', async (t) => {
  const { client } = await connectClient(t.context.proxy.mcpUrl('everything'));
  const events: string[] = [];
  const result = await client.callTool(
    { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
    undefined,
    { onprogress: ({ progress, total }) => void events.push(`progress ${progress}/${total}`) },
  );
  events.push('result');
  t.deepEqual(events, ['progress 1/3', 'progress 2/3', 'progress 3/3', 'result']);
  t.regex((result.content as { text: string }[])[0]!.text, /completed/);
  await client.close();
});
