// Id remapping as the stdio server sees it, through the scripted server (it reports every message
// it received): cancellations both ways, server request ids, a session's end.
import test from 'ava';
import { ListRootsRequestSchema, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type Gateway } from '../../gateway/start-gateway';
import { connect, eventually, listening, type Connected } from './support/clients';
import { quietLogger, scriptedSource } from './support/stdio-servers';

interface Received {
  id?: RequestId;
  method?: string;
  params?: { name?: string; requestId?: RequestId; reason?: string };
  result?: unknown;
}

let gateway: Gateway;

test.before(async () => {
  gateway = await startGateway({ source: scriptedSource(), port: 0, logger: quietLogger });
  await gateway.ready;
});

test.after.always(() => gateway.close());

async function receivedByServer(connected: Connected): Promise<Received[]> {
  const result = await connected.client.callTool({ name: 'received', arguments: {} });
  const [content] = result.content as Array<{ text: string }>;
  return JSON.parse(content?.text ?? '[]') as Received[];
}

function inflightOf(sessionId: string): number | undefined {
  return gateway.sessions().find((s) => s.id === sessionId)?.inflight;
}

test.serial('client cancellations reach the server under the ids the server knows', async (t) => {
  const [a, b] = await Promise.all([connect(gateway.url, 'cancel-a'), connect(gateway.url, 'cancel-b')]);
  const controllers = [new AbortController(), new AbortController()];
  const calls = [a, b].map((c, i) => c.client.callTool({ name: 'hold', arguments: {} }, undefined, { signal: controllers[i]!.signal }));
  await eventually(() => (inflightOf(a.sessionId) === 1 && inflightOf(b.sessionId) === 1) || undefined, 'both holds in flight');
  for (const controller of controllers) controller.abort('no longer needed');
  for (const call of calls) await t.throwsAsync(call);
  await eventually(() => (inflightOf(a.sessionId) === 0 && inflightOf(b.sessionId) === 0) || undefined, 'both holds released');

  const received = await receivedByServer(a);
  const holds = received.filter((m) => m.method === 'tools/call' && m.params?.name === 'hold').map((m) => m.id);
  const cancelled = received.filter((m) => m.method === 'notifications/cancelled').map((m) => m.params?.requestId);
  t.is(holds.length, 2);
  t.not(holds[0], holds[1]);
  t.deepEqual([...cancelled].sort(), [...holds].sort());
  await Promise.all([a.client.close(), b.client.close()]);
});

test.serial('a server request under a string id is answered under that id', async (t) => {
  const a = await connect(gateway.url, 'roots-owner', { roots: {} });
  a.client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///srv/project', name: 'project' }] }));
  const result = await a.client.callTool({ name: 'ask', arguments: {} });
  const [content] = result.content as Array<{ text: string }>;
  const answer = JSON.parse(content?.text ?? '{}') as Received;
  t.regex(String(answer.id), /^server-request-\d+$/);
  t.deepEqual(answer.result, { roots: [{ uri: 'file:///srv/project', name: 'project' }] });
  await a.client.close();
});

test.serial("the server's cancellation of its request reaches the session under the gateway's id", async (t) => {
  const a = await connect(gateway.url, 'roots-cancelled', { roots: {} });
  let askedAs: RequestId | undefined;
  const cancelledAs = new Promise<RequestId | undefined>((resolve) => {
    a.client.setRequestHandler(ListRootsRequestSchema, async (_request, extra) => {
      askedAs = extra.requestId;
      if (!extra.signal.aborted) await new Promise((r) => extra.signal.addEventListener('abort', r));
      resolve(extra.requestId);
      return { roots: [] };
    });
  });
  const result = await a.client.callTool({ name: 'ask-then-cancel', arguments: {} });
  t.regex(JSON.stringify(result.content), /asked and cancelled/);
  // The SDK client aborts a handler only when the cancellation names its request's id.
  t.is(await cancelledAs, askedAs);
  t.regex(String(askedAs), /^gateway-\d+$/);
  await a.client.close();
});

test.serial('a session that ends has its pending requests cancelled on the server', async (t) => {
  const leaving = await connect(gateway.url, 'leaving');
  const observer = await connect(gateway.url, 'observer');
  await listening(gateway, leaving.sessionId);
  const hold = leaving.client.callTool({ name: 'hold', arguments: {} }).catch(() => 'ended');
  await eventually(() => inflightOf(leaving.sessionId) === 1 || undefined, 'the hold in flight');
  await leaving.transport.terminateSession();

  const received = await receivedByServer(observer);
  const holdId = received.filter((m) => m.method === 'tools/call' && m.params?.name === 'hold').at(-1)?.id;
  const cancellation = received.find((m) => m.method === 'notifications/cancelled' && m.params?.requestId === holdId);
  t.is(cancellation?.params?.reason, 'the client session ended');
  await leaving.client.close();
  t.is(await hold, 'ended');
  await observer.client.close();
});
