// What a member of the HTTP+SSE transport (2024-11-05: the SDK v1's SSEServerTransport) says of its
// own accord reaches the toolset's clients, as a Streamable HTTP member's does: a 2025 client
// holding its session's GET stream hears the member's tools/list_changed and is asked for its
// roots by the member, and its answer goes back to the upstream session that asked; a 2026 client
// hears the change on its subscriptions/listen stream, and the next tools/list has the new tool.
import test from 'ava';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import type { Route } from '../../proxy/route';
import { startLegacySseMcpServer, type LegacySseMcpServer } from '../fixtures/legacy-sse-mcp-server';
import { eventually } from '../helpers/test-stack';
import { auth, connectedTo, startToolsetHarness, toolsetOf, type ToolsetHarness } from './toolset-harness';

const TOOLSET = '5e5e5e5e-1a2b-4c3d-8e4f-5a6b7c8d9e0f';
const MEMBER = '53535353-5353-4353-8353-535353535353';
const TOKEN = 'sse-member-token-4b1d';
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? '';

let harness: ToolsetHarness;
let upstream: LegacySseMcpServer;

test.before(async () => {
  harness = await startToolsetHarness();
  upstream = await startLegacySseMcpServer({ token: TOKEN });
  harness.routes.set(MEMBER, { ...connectedTo(upstream.url, TOKEN), transport: 'sse' } as Route);
  harness.toolsets.set(TOOLSET, toolsetOf(TOOLSET, { old: MEMBER }, { name: 'sse member' }));
});

test.after.always(async () => {
  await harness?.close();
  await upstream?.close();
});

/** Adds tools to the member until `heard` says the change arrived: the stream that carries it opens after the client's. */
async function addUntilHeard(stem: string, heard: () => boolean): Promise<string[]> {
  const added: string[] = [];
  await eventually(async () => {
    added.push(`${stem}${added.length}`);
    upstream.addTool(added.at(-1)!);
    await new Promise((resolve) => setTimeout(resolve, 200));
    return heard() ? true : undefined;
  }, 30_000, "the member's tools/list_changed");
  return added;
}

test.serial("2025-11-25: the client's GET stream carries the SSE member's list change and its request for roots, and the answer reaches the member", async (t) => {
  const client = new ClientV1({ name: 'sse-member-v1', version: '1' }, { capabilities: { roots: {} } });
  let changed = 0;
  let asked = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    asked += 1;
    return { roots: [{ uri: 'file:///work/sse-member', name: 'sse' }] };
  });
  await client.connect(new TransportV1(new URL(harness.urlOf(TOOLSET)), { requestInit: { headers: auth() } }));
  t.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['old__echo', 'old__count', 'old__wait', 'old__roots']);

  // The member asks on its SSE stream, outside the call: only the session's GET stream can carry it.
  const answered = await eventually(async () => {
    const result = await client.callTool({ name: 'old__roots', arguments: {} });
    return result.isError ? undefined : textOf(result);
  }, 30_000, 'the roots the member asked the client for');
  t.is(answered, 'file:///work/sse-member', "the client's answer went back to the member's upstream session");
  t.true(asked > 0);

  const added = await addUntilHeard('late', () => changed > 0);
  t.true(changed > 0, 'notifications/tools/list_changed');
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  t.true(names.includes(`old__${added[0]}`), 'the next tools/list has the new tool');
  await client.close();
});

test.serial("2026-07-28: the SSE member's list change reaches the client's subscriptions/listen stream, and the next tools/list has the new tool", async (t) => {
  let heard = 0;
  const client = new ClientV2({ name: 'sse-member-v2', version: '1' }, {
    versionNegotiation: { mode: 'auto' }, listChanged: { tools: { autoRefresh: false, onChanged: () => void (heard += 1) } },
  });
  await client.connect(new TransportV2(new URL(harness.urlOf(TOOLSET)), { requestInit: { headers: auth() } }));
  t.is(client.getNegotiatedProtocolVersion(), '2026-07-28');
  const before = (await client.listTools()).tools.map((tool) => tool.name);
  const added = await addUntilHeard('modern', () => heard > 0);
  t.true(heard > 0, 'notifications/tools/list_changed');
  t.false(before.includes(`old__${added[0]}`));
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  t.true(names.includes(`old__${added[0]}`), 'the next tools/list has the new tool');
  await client.close();
  t.false(upstream.seen.some((s) => s.method === 'POST' && s.path !== '/messages'), 'the member was never POSTed to as Streamable HTTP (no subscriptions/listen)');
  for (const seen of upstream.seen) t.is(seen.authorization, `Bearer ${TOKEN}`, `${seen.method} ${seen.path}`);
});
