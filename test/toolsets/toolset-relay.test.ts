// What members send while they work reaches the toolset's client, in both revisions, with real SDK
// clients (v1 at 2025-11-25, v2 at 2026-07-28) and real members: the MCP project's reference server
// (2025-era, stateful sessions: progress, elicitation, sampling and roots requests to the client)
// and an SDK v2 server of the 2026-07-28 era (progress, an input_required elicitation). The
// caller's progressToken and capabilities reach the member; the toolset answers with its own
// serverInfo; a session's GET stream sends its head at once.
import anyTest, { type TestFn } from 'ava';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { startEverythingServer, type EverythingServer } from '../fixtures/everything-server';
import { eventually } from '../helpers/test-stack';
import { startInteractiveMcpServer, type InteractiveMcpServer } from '../fixtures/interactive-mcp-server';
import { auth, connectedTo, startToolsetHarness, toolsetOf, type ToolsetHarness } from './toolset-harness';

interface Context {
  harness: ToolsetHarness;
  everything: EverythingServer;
  interactive: InteractiveMcpServer;
  url: string;
}
const test = anyTest as TestFn<Context>;

const TOOLSET = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const EVERYTHING = '51515151-5151-4151-8151-515151515151';
const INTERACTIVE = '52525252-5252-4252-8252-525252525252';

test.before(async (t) => {
  const harness = await startToolsetHarness();
  const everything = await startEverythingServer();
  const interactive = await startInteractiveMcpServer();
  harness.routes.set(EVERYTHING, connectedTo(everything.url, 'unused-token'));
  harness.routes.set(INTERACTIVE, connectedTo(interactive.url, 'unused-token'));
  harness.toolsets.set(TOOLSET, toolsetOf(TOOLSET, { ev: EVERYTHING, iv: INTERACTIVE }, { name: 'relay' }));
  t.context = { harness, everything, interactive, url: harness.urlOf(TOOLSET) };
});

test.after.always(async (t) => {
  await t.context.harness?.close();
  await t.context.everything?.stop();
  await t.context.interactive?.close();
});

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? '';

test.serial('2025-11-25: progress, elicitation, sampling and roots travel between the member and the client; the toolset is the server', async (t) => {
  const client = new ClientV1({ name: 'relay-v1', version: '1' }, { capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } } });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async () => {
    asked.push('elicitation');
    return { action: 'accept', content: { name: 'Ada', check: true, email: 'ada@example.com', homepage: 'https://example.com', birthdate: '1815-12-10', integer: 1, number: 1.5, untitledSingleSelectEnum: 'option1', untitledMultipleSelectEnum: ['option1'], titledSingleSelectEnum: 'value1', titledMultipleSelectEnum: ['value1'], legacyTitledEnum: 'opt1' } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    asked.push('sampling');
    return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled by the client' } };
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    asked.push('roots');
    return { roots: [{ uri: 'file:///work/relay', name: 'relay' }] };
  });
  await client.connect(new TransportV1(new URL(t.context.url), { requestInit: { headers: auth() } }));
  t.is(client.getServerVersion()?.name, 'toolset relay', 'its own serverInfo, not a member\'s');

  const names = (await client.listTools()).tools.map((tool) => tool.name);
  t.true(names.includes('ev__trigger-elicitation-request'), 'the member saw the client\'s elicitation capability (it lists this tool only then)');
  t.true(names.includes('iv__count'));

  const progress: number[] = [];
  const long = await client.callTool({ name: 'ev__trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, { onprogress: (p) => void progress.push(p.progress) });
  t.regex(textOf(long), /Long running operation completed/);
  t.deepEqual(progress, [1, 2, 3], 'the caller\'s progressToken reached the 2025 member, and its notifications came back');

  const modernProgress: number[] = [];
  t.is(textOf(await client.callTool({ name: 'iv__count', arguments: { n: 4 } }, undefined, { onprogress: (p) => void modernProgress.push(p.progress) })), 'counted to 4');
  t.deepEqual(modernProgress, [1, 2, 3, 4], 'and from the 2026 member');

  t.regex(JSON.stringify(await client.callTool({ name: 'ev__trigger-elicitation-request', arguments: {} })), /Ada/);
  t.regex(JSON.stringify(await client.callTool({ name: 'ev__trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 10 } })), /sampled by the client/);
  t.regex(JSON.stringify(await client.callTool({ name: 'ev__get-roots-list', arguments: {} })), /file:\/\/\/work\/relay/);
  // The reference server also asks for the roots by itself once its session is initialized.
  t.deepEqual([...new Set(asked)].sort(), ['elicitation', 'roots', 'sampling']);
  await client.close();
});

test.serial('2026-07-28: progress in both directions of era, and an input_required round trip answered by the client', async (t) => {
  const client = new ClientV2({ name: 'relay-v2', version: '1' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } });
  let elicited = 0;
  client.setRequestHandler('elicitation/create', async () => {
    elicited += 1;
    return { action: 'accept', content: { colour: 'teal' } };
  });
  await client.connect(new TransportV2(new URL(t.context.url), { requestInit: { headers: auth() } }));
  t.is(client.getNegotiatedProtocolVersion(), '2026-07-28');
  t.is(client.getServerVersion()?.name, 'toolset relay');

  const progress: number[] = [];
  t.is(textOf(await client.callTool({ name: 'iv__count', arguments: { n: 3 } }, { onprogress: (p) => void progress.push(p.progress) })), 'counted to 3');
  t.deepEqual(progress, [1, 2, 3]);
  const legacyProgress: number[] = [];
  const long = await client.callTool({ name: 'ev__trigger-long-running-operation', arguments: { duration: 0.3, steps: 2 } }, { onprogress: (p) => void legacyProgress.push(p.progress) });
  t.regex(textOf(long), /completed/);
  t.deepEqual(legacyProgress, [1, 2], 'a 2025 member\'s progress reaches a 2026 client');

  t.is(textOf(await client.callTool({ name: 'iv__confirm', arguments: {} })), 'the user chose teal');
  t.is(elicited, 1, 'the member\'s input_required reached the client, and its retry the member');
  const confirms = t.context.interactive.calls.filter((c) => c.tool === 'confirm');
  t.is(confirms.length, 2, 'asked, then answered');
  t.deepEqual(confirms[0]!.capabilities, { elicitation: { form: {} } }, 'the client\'s capabilities reached the member');
  await client.close();
});

test.serial("a 2026 member's own list change reaches a 2026 client's subscriptions/listen stream through the toolset", async (t) => {
  let heard = 0;
  const client = new ClientV2({ name: 'listen-v2', version: '1' }, {
    versionNegotiation: { mode: 'auto' }, listChanged: { tools: { autoRefresh: false, onChanged: () => void (heard += 1) } },
  });
  await client.connect(new TransportV2(new URL(t.context.url), { requestInit: { headers: auth() } }));
  // The toolset's listen stream to the member opens once the toolset is watched: say it until heard.
  await eventually(async () => {
    t.context.interactive.announce();
    await new Promise((resolve) => setTimeout(resolve, 200));
    return heard > 0 ? true : undefined;
  }, 30_000, "the member's tools/list_changed");
  t.true(heard > 0);
  await client.close();
});

test.serial('a 2026 result names the toolset as its server', async (t) => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };
  const res = await fetch(t.context.url, {
    method: 'POST',
    headers: { ...auth(), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'iv__count' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'iv__count', arguments: { n: 1 }, _meta: meta } }),
  });
  const text = await res.text();
  const answer = JSON.parse(text.includes('data:') ? text.split('\n').filter((l) => l.startsWith('data:')).at(-1)!.slice(5) : text);
  t.is(answer.id, 5);
  t.deepEqual(answer.result._meta['io.modelcontextprotocol/serverInfo'], { name: 'toolset relay', version: '1.0.0' });
});

test.serial("a session's GET stream answers with its head before any event", async (t) => {
  const init = await fetch(t.context.url, {
    method: 'POST', headers: { ...auth(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  const session = init.headers.get('mcp-session-id')!;
  await init.text();
  const controller = new AbortController();
  t.teardown(() => controller.abort());
  // Resolves on the head: a stream that waited for its first event would never get here.
  const stream = await fetch(t.context.url, { headers: { ...auth(), accept: 'text/event-stream', 'mcp-session-id': session }, signal: controller.signal });
  t.is(stream.status, 200);
  t.is(stream.headers.get('content-type'), 'text/event-stream');
});
