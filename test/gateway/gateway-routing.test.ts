// Several sessions sharing one stdio server-everything: each gets its own answers and progress,
// server requests reach a session that can answer them, broadcasts reach everyone, resource
// updates reach their subscribers. Serial: the routing choices depend on which sessions exist.
import test from 'ava';
import {
  CreateMessageRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type Gateway } from '../../gateway/start-gateway';
import { connect, eventually, listening, type Connected } from './support/clients';
import { everythingSource, quietLogger } from './support/stdio-servers';

let gateway: Gateway;
const open: Connected[] = [];

test.before(async () => {
  gateway = await startGateway({ source: everythingSource(), port: 0, logger: quietLogger });
  await gateway.ready;
});

test.afterEach.always(async () => {
  await Promise.all(open.splice(0).map(async ({ client, transport }) => {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }));
});

test.after.always(() => gateway.close());

async function session(name: string, capabilities = {}): Promise<Connected> {
  const connected = await connect(gateway.url, name, capabilities);
  open.push(connected);
  return connected;
}

/** A client that answers sampling requests with a text naming itself. */
async function samplingSession(name: string): Promise<Connected> {
  const connected = await session(name, { sampling: {} });
  connected.client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant', model: 'test-model', content: { type: 'text', text: `sampled by ${name}` },
  }));
  return connected;
}

test.serial('two concurrent sessions each get their own answers and their own progress', async (t) => {
  const [a, b] = await Promise.all([session('client-a'), session('client-b')]);
  const progressA: Progress[] = [];
  const progressB: Progress[] = [];
  // Both clients number their requests alike; the gateway must keep them apart.
  const [resultA, resultB] = await Promise.all([
    a.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 2 } }, undefined, {
      onprogress: (p) => progressA.push(p),
    }),
    b.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 1.5, steps: 3 } }, undefined, {
      onprogress: (p) => progressB.push(p),
    }),
  ]);
  t.regex(JSON.stringify(resultA.content), /Duration: 1 seconds, Steps: 2\./);
  t.regex(JSON.stringify(resultB.content), /Duration: 1.5 seconds, Steps: 3\./);
  t.deepEqual(progressA.map((p) => [p.progress, p.total]), [[1, 2], [2, 2]]);
  t.deepEqual(progressB.map((p) => [p.progress, p.total]), [[1, 3], [2, 3], [3, 3]]);
});

test.serial('a sampling request goes to the session whose tool call asked for it, and back', async (t) => {
  const asker = await samplingSession('asker');
  await samplingSession('bystander');
  const result = await asker.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello' } });
  t.regex(JSON.stringify(result.content), /sampled by asker/);
});

test.serial('a sampling request from a session that cannot sample goes to one that can', async (t) => {
  const sampler = await samplingSession('sampler');
  await listening(gateway, sampler.sessionId);
  const plain = await session('no-sampling');
  const result = await plain.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello' } });
  t.regex(JSON.stringify(result.content), /sampled by sampler/);
});

test.serial('list_changed from the server reaches every session', async (t) => {
  const [a, b] = await Promise.all([session('maker'), session('watcher')]);
  await Promise.all([listening(gateway, a.sessionId), listening(gateway, b.sessionId)]);
  const heard = (c: Connected) => new Promise<string>((resolve) => {
    c.client.setNotificationHandler(ResourceListChangedNotificationSchema, (n) => resolve(n.method));
  });
  const both = Promise.all([heard(a), heard(b)]);
  await a.client.callTool({ name: 'gzip-file-as-resource', arguments: { name: 'list.txt.gz', data: 'data:text/plain,hi' } });
  t.deepEqual(await both, ['notifications/resources/list_changed', 'notifications/resources/list_changed']);
});

test.serial('resource updates reach the sessions subscribed to that resource only', async (t) => {
  const [a, b] = await Promise.all([session('subscriber-a'), session('subscriber-b')]);
  await Promise.all([listening(gateway, a.sessionId), listening(gateway, b.sessionId)]);
  const updates = { a: [] as string[], b: [] as string[] };
  a.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.a.push(n.params.uri));
  b.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.b.push(n.params.uri));
  await a.client.subscribeResource({ uri: 'demo://resource/dynamic/text/1' });
  await b.client.subscribeResource({ uri: 'demo://resource/dynamic/text/2' });
  t.deepEqual(gateway.sessions().find((s) => s.id === a.sessionId)?.subscriptions, ['demo://resource/dynamic/text/1']);

  await a.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
  await eventually(() => (updates.a.length > 0 && updates.b.length > 0) || undefined, 'both updates');
  await a.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
  t.true(updates.a.every((uri) => uri === 'demo://resource/dynamic/text/1'));
  t.true(updates.b.every((uri) => uri === 'demo://resource/dynamic/text/2'));
});

test.serial('a log message sent while only one session has a request in flight goes to that session', async (t) => {
  const [a, b] = await Promise.all([session('logged-a'), session('logged-b')]);
  await Promise.all([listening(gateway, a.sessionId), listening(gateway, b.sessionId)]);
  const logs = { a: [] as string[], b: [] as string[] };
  a.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.a.push(String(n.params.data)));
  b.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.b.push(String(n.params.data)));
  // server-everything logs each subscription while handling it; the log rides on that request's
  // stream, so it is there by the time the answer is.
  await a.client.subscribeResource({ uri: 'demo://resource/dynamic/text/3' });
  t.true(logs.a.some((data) => data.includes('demo://resource/dynamic/text/3')));
  await b.client.subscribeResource({ uri: 'demo://resource/dynamic/text/4' });
  t.true(logs.b.some((data) => data.includes('demo://resource/dynamic/text/4')));
  t.false(logs.b.some((data) => data.includes('demo://resource/dynamic/text/3')));
});
