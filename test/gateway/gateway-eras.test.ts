// Both protocol eras through one gateway, in front of a stdio server of either era: the SDK v1
// client (2025-11-25) and the SDK v2 client pinned to each era list and call tools, alone and all
// at once; 2026-07-28 requests need no session, and their Mcp-Method/Mcp-Name headers must agree
// with the body (400, -32020, the server never sees the request otherwise).
import test, { type ExecutionContext } from 'ava';
import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import { CreateMessageRequestSchema, ElicitRequestSchema, ToolListChangedNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type Gateway } from '../../gateway/start-gateway';
import { connect, eventually, listening } from './support/clients';
import { everythingSource, modernSource, quietLogger, scriptedSource } from './support/stdio-servers';
import { connectV2, MODERN, postModern } from './support/v2-clients';

type ClientKind = 'v1 (2025-11-25)' | 'v2 pinned to 2025-11-25' | 'v2 pinned to 2026-07-28';
const CLIENTS: ClientKind[] = ['v1 (2025-11-25)', 'v2 pinned to 2025-11-25', 'v2 pinned to 2026-07-28'];

interface AnyClient {
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void): Promise<string>;
  serverName(): string | undefined;
  /** 'legacy' or 'modern' as the client itself reports it. */
  era(): string;
  close(): Promise<void>;
}

async function open(kind: ClientKind, url: string, name: string): Promise<AnyClient> {
  if (kind === 'v1 (2025-11-25)') {
    const { client, transport } = await connect(url, name);
    return {
      listTools: () => client.listTools(),
      callTool: async (tool, args, onprogress) => JSON.stringify((await client.callTool({ name: tool, arguments: args }, undefined, { onprogress })).content),
      serverName: () => client.getServerVersion()?.name,
      era: () => 'legacy',
      close: async () => {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      },
    };
  }
  const client: ClientV2 = await connectV2(url, name, kind === 'v2 pinned to 2026-07-28' ? 'modern' : 'legacy');
  return {
    listTools: () => client.listTools(),
    callTool: async (tool, args, onprogress) => JSON.stringify((await client.callTool({ name: tool, arguments: args }, { onprogress })).content),
    serverName: () => client.getServerVersion()?.name,
    era: () => String(client.getProtocolEra()),
    close: () => client.close(),
  };
}

interface Child {
  label: string;
  serverName: string;
  echo: { tool: string; args: Record<string, unknown>; answer: RegExp };
  /** A tool that reports progress three times. */
  progress: { tool: string; args: Record<string, unknown> };
}

const LEGACY_CHILD: Child = {
  label: 'a 2025 stdio server (server-everything)',
  serverName: 'mcp-servers/everything',
  echo: { tool: 'echo', args: { message: 'both eras' }, answer: /Echo: both eras/ },
  progress: { tool: 'trigger-long-running-operation', args: { duration: 0.3, steps: 3 } },
};
const MODERN_CHILD: Child = {
  label: 'a 2026-07-28-only stdio server (SDK v2)',
  serverName: 'modern-stdio-server',
  echo: { tool: 'echo', args: { text: 'both eras' }, answer: /echo: both eras/ },
  progress: { tool: 'slow-count', args: { steps: 3 } },
};

const gateways = new Map<Child, Gateway>();

test.before(async () => {
  for (const [child, source] of [[LEGACY_CHILD, everythingSource()], [MODERN_CHILD, modernSource()]] as const) {
    const gateway = await startGateway({ source, port: 0, logger: quietLogger });
    await gateway.ready;
    gateways.set(child, gateway);
  }
});

test.after.always(async () => {
  await Promise.all([...gateways.values()].map((g) => g.close()));
});

const listsAndCalls = test.macro({
  async exec(t: ExecutionContext, kind: ClientKind, child: Child) {
    const client = await open(kind, gateways.get(child)!.url, `matrix-${kind}`);
    t.teardown(() => client.close());
    t.is(client.era(), kind === 'v2 pinned to 2026-07-28' ? 'modern' : 'legacy');
    t.is(client.serverName(), child.serverName);
    const { tools } = await client.listTools();
    t.true(tools.some((tool) => tool.name === child.echo.tool), JSON.stringify(tools.map((tool) => tool.name)));
    t.regex(await client.callTool(child.echo.tool, child.echo.args), child.echo.answer);
  },
  title: (_provided: string | undefined, kind: ClientKind, child: Child) => `the ${kind} client lists and calls tools through the gateway in front of ${child.label}`,
});

for (const child of [LEGACY_CHILD, MODERN_CHILD]) {
  for (const kind of CLIENTS) test(listsAndCalls, kind, child);
}

for (const child of [LEGACY_CHILD, MODERN_CHILD]) {
  test(`clients of both eras at once, in front of ${child.label}, each get their own answers and progress`, async (t) => {
    const url = gateways.get(child)!.url;
    const clients = await Promise.all(CLIENTS.map((kind) => open(kind, url, `concurrent-${kind}`)));
    t.teardown(() => Promise.all(clients.map((c) => c.close())));
    const progress = CLIENTS.map(() => [] as number[]);
    const answers = await Promise.all(clients.map(async (client, i) => ({
      list: await client.listTools(),
      echo: await client.callTool(child.echo.tool, child.echo.args),
      progressed: await client.callTool(child.progress.tool, child.progress.args, (p) => progress[i]!.push(p.progress)),
    })));
    for (const [i, answer] of answers.entries()) {
      t.true(answer.list.tools.some((tool) => tool.name === child.progress.tool), CLIENTS[i]);
      t.regex(answer.echo, child.echo.answer, CLIENTS[i]);
      t.deepEqual(progress[i], [1, 2, 3], CLIENTS[i]);
    }
  });

  test(`server/discover needs no session, in front of ${child.label}`, async (t) => {
    const response = await postModern(gateways.get(child)!.url, { method: 'server/discover' });
    t.is(response.status, 200);
    const answer = await response.json() as { result: Record<string, unknown> };
    t.like(answer.result, {
      supportedVersions: [MODERN],
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: child.serverName } },
    });
    t.truthy((answer.result.capabilities as { tools?: object }).tools);
  });
}

test('a 2026-07-28 server is offered to a 2025 client as a 2025-11-25 server, with its instructions', async (t) => {
  const { client, transport } = await connect(gateways.get(MODERN_CHILD)!.url, 'initialize-from-discover');
  t.teardown(async () => {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  });
  t.is(transport.protocolVersion, '2025-11-25');
  t.is(client.getInstructions(), 'a 2026-07-28-only server for the gateway tests');
});

test('a 2026-07-28 client answers the 2026-07-28 server\'s input_required through the gateway', async (t) => {
  const client = await connectV2(gateways.get(MODERN_CHILD)!.url, 'mrtr', 'modern', { elicitation: { form: {} } });
  t.teardown(() => client.close());
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { ok: true } }));
  const result = await client.callTool({ name: 'confirm', arguments: {} });
  t.regex(JSON.stringify(result.content), /confirmed: .*accept.*ok.*true/);
});

test('Mcp-Name or Mcp-Method that disagree with the body answer 400 (-32020) and never reach the server', async (t) => {
  const gateway = await startGateway({ source: scriptedSource(), port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  await gateway.ready;
  // The body names the tool that would end the server; the header names a harmless one.
  const named = await postModern(gateway.url, { method: 'tools/call', params: { name: 'crash', arguments: {} } }, { 'mcp-name': 'received' });
  t.is(named.status, 400);
  t.like(await named.json(), { error: { code: -32020 } });
  const method = await postModern(gateway.url, { method: 'tools/call', params: { name: 'crash', arguments: {} } }, { 'mcp-method': 'tools/list', 'mcp-name': 'crash' });
  t.is(method.status, 400);
  t.like(await method.json(), { error: { code: -32020 } });
  const missing = await postModern(gateway.url, { method: 'tools/call', params: { name: 'crash', arguments: {} } });
  t.is(missing.status, 400, 'Mcp-Name is required on tools/call');

  const received = await postModern(gateway.url, { method: 'tools/call', params: { name: 'received', arguments: {} } }, { 'mcp-name': 'received' });
  t.is(received.status, 200);
  const text = JSON.stringify(await received.json());
  t.notRegex(text, /crash/);
  t.is(gateway.health().state, 'ready');
});

test('a 2026-07-28 client hears the 2025 server\'s list changes on its subscriptions/listen stream', async (t) => {
  const url = gateways.get(LEGACY_CHILD)!.url;
  const listener = await connectV2(url, 'listener', 'modern');
  t.teardown(() => listener.close());
  const heard = new Promise<string>((resolve) => {
    listener.setNotificationHandler('notifications/resources/list_changed', (n) => resolve(n.method));
  });
  const subscription = await listener.listen({ resourcesListChanged: true });
  t.teardown(() => subscription.close());
  // A 2025 session makes the server register a resource.
  const maker = await open('v1 (2025-11-25)', url, 'resource-maker');
  t.teardown(() => maker.close());
  await maker.callTool('gzip-file-as-resource', { name: 'listen.txt.gz', data: 'data:text/plain,hi' });
  t.is(await heard, 'notifications/resources/list_changed');
});

test('a server request during a 2026-07-28 client\'s call is refused, not put to another client', async (t) => {
  // A gateway of its own: which sessions have requests in flight decides where the request goes.
  const gateway = await startGateway({ source: everythingSource(), port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  const url = gateway.url;
  // A 2025 session that could sample, listening: the gateway's guess would otherwise land there.
  const { client: sampler, transport } = await connect(url, 'bystander-sampler', { sampling: {} });
  let asked = 0;
  sampler.setRequestHandler(CreateMessageRequestSchema, async () => {
    asked += 1;
    return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'sampled by a bystander' } };
  });
  t.teardown(async () => {
    await transport.terminateSession().catch(() => undefined);
    await sampler.close();
  });
  await listening(gateway, transport.sessionId ?? '');
  const modern = await connectV2(url, 'modern-caller', 'modern', { sampling: {} });
  t.teardown(() => modern.close());
  const outcome = await modern.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello' } }).then(
    (result) => JSON.stringify(result), (error: Error) => error.message,
  );
  t.notRegex(outcome, /sampled by a bystander/);
  t.regex(outcome, /2026-07-28|cannot answer|error/i);
  t.is(asked, 0);
});

test('a 2026-07-28 server\'s list changes reach clients of both eras', async (t) => {
  const url = gateways.get(MODERN_CHILD)!.url;
  const legacy = await connect(url, 'legacy-watcher');
  t.teardown(async () => {
    await legacy.transport.terminateSession().catch(() => undefined);
    await legacy.client.close();
  });
  await listening(gateways.get(MODERN_CHILD)!, legacy.sessionId);
  const modern = await connectV2(url, 'modern-watcher', 'modern');
  t.teardown(() => modern.close());
  const heardByLegacy = new Promise<string>((resolve) => {
    legacy.client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => resolve(n.method));
  });
  const heardByModern = new Promise<string>((resolve) => {
    modern.setNotificationHandler('notifications/tools/list_changed', (n) => resolve(n.method));
  });
  const subscription = await modern.listen({ toolsListChanged: true });
  t.teardown(() => subscription.close());
  await modern.callTool({ name: 'add-tool', arguments: { name: 'added-while-listening' } });
  t.deepEqual(await Promise.all([heardByLegacy, heardByModern]), ['notifications/tools/list_changed', 'notifications/tools/list_changed']);
  const { tools } = await legacy.client.listTools();
  t.true(tools.some((tool) => tool.name === 'added-while-listening'));
});

test('a 2025 client answers the 2026-07-28 server\'s input_required as the elicitation request it was in 2025', async (t) => {
  const { client, transport } = await connect(gateways.get(MODERN_CHILD)!.url, 'legacy-elicited', { elicitation: { form: {} } });
  t.teardown(async () => {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(String(request.params.message));
    return { action: 'accept', content: { ok: true } };
  });
  const result = await client.callTool({ name: 'confirm', arguments: {} });
  t.deepEqual(asked, ['Confirm?']);
  t.regex(JSON.stringify(result.content), /confirmed: .*accept.*ok.*true/);
});

test('a 2025 client that cannot elicit gets an error for a tool that needs it, not a bare input_required', async (t) => {
  const { client, transport } = await connect(gateways.get(MODERN_CHILD)!.url, 'legacy-no-elicitation');
  t.teardown(async () => {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  });
  const error = await t.throwsAsync(client.callTool({ name: 'confirm', arguments: {} }));
  t.regex(error?.message ?? '', /elicitation\/create/);
});

test('a method the stdio server does not know answers 404 with -32601 to a 2026-07-28 client', async (t) => {
  for (const child of [LEGACY_CHILD, MODERN_CHILD]) {
    // A method only the stdio server can say it does not know: the gateway relays what it does not know.
    const response = await postModern(gateways.get(child)!.url, { method: 'vendor/unknown' });
    t.is(response.status, 404, child.label);
    t.like(await response.json(), { error: { code: -32601 } }, child.label);
  }
});

test('a stdio server that never answers server/discover is initialized once the probe gives up, and serves both eras', async (t) => {
  const gateway = await startGateway({
    source: scriptedSource({ SCRIPTED_SILENT_DISCOVER: '1' }), port: 0, logger: quietLogger, discoverTimeoutMs: 200,
  });
  t.teardown(() => gateway.close());
  await gateway.ready;
  const modern = await connectV2(gateway.url, 'modern-after-silence', 'modern');
  t.teardown(() => modern.close());
  const received = await modern.callTool({ name: 'received', arguments: {} });
  const methods = (JSON.parse((received.content[0] as { text: string }).text) as Array<{ method?: string }>).map((m) => m.method);
  t.deepEqual(methods.slice(0, 3), ['server/discover', 'initialize', 'notifications/initialized']);
  const { client, transport } = await connect(gateway.url, 'legacy-after-silence');
  t.teardown(async () => {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  });
  t.is(client.getServerVersion()?.name, 'scripted-stdio-server');
});

test('a 2026-07-28 client that leaves mid-call has the call cancelled on the stdio server', async (t) => {
  const gateway = await startGateway({ source: scriptedSource(), port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  await gateway.ready;
  const received = async () => {
    const response = await postModern(gateway.url, { method: 'tools/call', params: { name: 'received', arguments: {} } }, { 'mcp-name': 'received' });
    const answer = await response.json() as { result: { content: Array<{ text: string }> } };
    return JSON.parse(answer.result.content[0]!.text) as Array<{ id?: number; method?: string; params?: { name?: string; requestId?: number } }>;
  };
  const leaving = new AbortController();
  const held = postModern(gateway.url, { method: 'tools/call', params: { name: 'hold', arguments: {} } }, { 'mcp-name': 'hold' }, leaving.signal);
  held.catch(() => undefined);
  const hold = await eventually(async () => (await received()).find((m) => m.method === 'tools/call' && m.params?.name === 'hold'), 'the held call to reach the server');
  leaving.abort();
  const cancelled = await eventually(async () => (await received()).find((m) => m.method === 'notifications/cancelled'), 'the cancellation');
  t.is(cancelled.params?.requestId, hold.id);
});
