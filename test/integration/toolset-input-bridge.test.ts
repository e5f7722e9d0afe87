// A 2026-07-28 member that asks for input (an input_required result, SEP-2322) through a toolset,
// to a 2025-11-25 client (SDK v1, a session of its own): the toolset asks the client with
// elicitation/create on the call's stream, and calls the member again with the client's answer and
// the member's requestState; the client sees one call that asked it a question. A client that
// declared no elicitation is still asked (the member was told nothing) and its refusal ends the call
// with an error. Across replicas: chart-shape.test.ts.
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { startTasksMcpServer, type TasksMcpServer } from '../fixtures/tasks-mcp-server';

const TOKEN = 'bridge-member-token';

let stack: TestStack;
let member: TasksMcpServer;
let mcpUrl: string;

test.before(async () => {
  stack = await startTestStack({ CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128' });
  member = await startTasksMcpServer({ tasks: false });
  const created = await stack.api('POST', '/api/v1/connectors', { url: member.url, match_preset: false });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const connected = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: TOKEN });
  if (connected.status !== 200) throw new Error(`connect: ${connected.status} ${connected.text}`);
  const toolset = await stack.api('POST', '/api/v1/toolsets', { name: 'bridge', members: [{ connector_id: created.body.id, prefix: 'ask' }] });
  if (toolset.status !== 201) throw new Error(`toolset: ${toolset.status} ${toolset.text}`);
  mcpUrl = toolset.body.mcp_url;
});

test.after.always(async () => {
  await stack?.stop();
  await member?.close();
});

/** An SDK v1 client of the toolset at 2025-11-25; with `answer`, it declares elicitation and answers with it. */
async function legacyClient(answer?: (message: string) => { action: 'accept' | 'decline'; content?: Record<string, unknown> }) {
  const client = new Client({ name: 'bridge-test', version: '1.0.0' }, { capabilities: answer ? { elicitation: {} } : {} });
  const asked: string[] = [];
  if (answer) client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(String(request.params.message));
    return answer(String(request.params.message));
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  return { client, asked };
}

const textOf = (result: unknown) => ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text).join('');

test.serial("a 2025 client is asked the member's question on its session, and the member's second round gets the answer", async (t) => {
  const { client, asked } = await legacyClient(() => ({ action: 'accept', content: { confirm: true } }));
  const before = member.callsOf('confirm_delete').length;
  const result = await client.callTool({ name: 'ask__confirm_delete', arguments: { filename: 'report.txt' } });
  t.is(textOf(result), 'deleted report.txt');
  t.deepEqual(asked, ['Delete report.txt?']);
  const rounds = member.callsOf('confirm_delete').slice(before);
  t.deepEqual(rounds.map((call) => call.answered), [false, true], 'asked once, then answered');
  t.true(rounds.every((call) => call.authorization === `Bearer ${TOKEN}`));

  const declined = await legacyClient(() => ({ action: 'decline' }));
  t.is(textOf(await declined.client.callTool({ name: 'ask__confirm_delete', arguments: { filename: 'keep.txt' } })), 'kept keep.txt');
  t.deepEqual(declined.asked, ['Delete keep.txt?']);
  await Promise.all([client.close(), declined.client.close()]);
});

test.serial('questions in two rounds of one call, several at a time', async (t) => {
  let n = 0;
  const { client, asked } = await legacyClient(() => ({ action: 'accept', content: { name: `value-${++n}` } }));
  const result = await client.callTool({ name: 'ask__multi_input', arguments: {} });
  t.is(asked.length, 2, 'both questions of the round reached the client');
  t.regex(textOf(result), /^got .*value-\d.* and .*value-\d.*$/);
  await client.close();
});

test.serial('a client that cannot answer gets the call ended with an error, not a hang', async (t) => {
  const { client } = await legacyClient();
  const error = await t.throwsAsync(client.callTool({ name: 'ask__confirm_delete', arguments: { filename: 'x.txt' } }));
  t.regex(String(error?.message), /could not answer the MCP server's request/);
  await client.close();
});
