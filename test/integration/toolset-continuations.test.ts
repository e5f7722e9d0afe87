// A 2025 member's request to the client (elicitation/create on its session) during a 2026-07-28
// client's call through a toolset: the client gets an input_required result carrying the request
// (the SDK v2 client answers it with its handler and retries), and the member gets the answer on its
// session and finishes the call — one question, then two in turn. A requestState another caller
// sends resumes nothing. Across replicas: chart-shape.test.ts.
import test from 'ava';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { sha256Hex } from '../../callers/api-keys';
import { startElicitingLegacyServer, type ElicitingLegacyServer } from '../fixtures/eliciting-legacy-server';
import { startTestStack, type TestStack } from '../helpers/test-stack';

const KEYS = { alice: 'alice-continuation-1a2b3c', carol: 'carol-continuation-4d5e6f' };
const as = (key: string) => ({ authorization: `Bearer ${key}` });

let stack: TestStack;
let member: ElicitingLegacyServer;
let mcpUrl: string;

test.before(async () => {
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'alice', sha256: sha256Hex(KEYS.alice) }, { subject: 'carol', sha256: sha256Hex(KEYS.carol) }]),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
  });
  member = await startElicitingLegacyServer();
  const created = await stack.api('POST', '/api/v1/connectors', { url: member.url, match_preset: false }, as(KEYS.alice));
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const connected = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: 'legacy-member-token' }, as(KEYS.alice));
  if (connected.status !== 200) throw new Error(`connect: ${connected.status} ${connected.text}`);
  const toolset = await stack.api('POST', '/api/v1/toolsets', { name: 'continuations', members: [{ connector_id: created.body.id, prefix: 'old' }], access: [{ callers: ['key:carol'], allow: ['*'] }] }, as(KEYS.alice));
  if (toolset.status !== 201) throw new Error(`toolset: ${toolset.status} ${toolset.text}`);
  mcpUrl = toolset.body.mcp_url;
});

test.after.always(async () => {
  await stack?.stop();
  await member?.close();
});

async function modernClient(key: string, colours: string[]) {
  const client = new Client({ name: 'continuation-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } });
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(String(request.params.message));
    return { action: 'accept', content: { colour: colours[asked.length - 1] ?? 'none' } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: as(key) } }));
  return { client, asked };
}

const textOf = (result: unknown) => ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text).join('');

test.serial("a 2026 client answers a 2025 member's question through input_required, and the member finishes the call", async (t) => {
  const { client, asked } = await modernClient(KEYS.alice, ['teal']);
  t.is(client.getNegotiatedProtocolVersion(), '2026-07-28');
  const before = member.answers.length;
  t.is(textOf(await client.callTool({ name: 'old__ask_colour', arguments: {} })), 'you chose teal');
  t.deepEqual(asked, ['Which colour?']);
  t.deepEqual(member.answers.slice(before), [{ action: 'accept', content: { colour: 'teal' } }], 'the answer reached the member on its session');
  await client.close();
});

test.serial('two questions in turn: two rounds of input_required, one call at the member', async (t) => {
  const { client, asked } = await modernClient(KEYS.alice, ['red', 'blue']);
  t.is(textOf(await client.callTool({ name: 'old__ask_twice', arguments: {} })), 'you chose red then blue');
  t.deepEqual(asked, ['First colour?', 'Second colour?']);
  await client.close();
});

/** One tools/call of ask_colour at 2026-07-28 declaring elicitation, by hand; the answer's JSON-RPC message (JSON or the last SSE event). */
async function askColour(key: string, extra: Record<string, unknown> = {}): Promise<{ result?: { resultType?: string; requestState?: string; content?: Array<{ text?: string }> } }> {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: { ...as(key), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'old__ask_colour' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {
      name: 'old__ask_colour', arguments: {}, ...extra,
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } },
    } }),
  });
  const text = await response.text();
  return JSON.parse(text.includes('data: ') ? text.split('data: ').at(-1)!.trim() : text);
}

test.serial("another caller's retry with alice's requestState resumes nothing: it is a call of its own", async (t) => {
  const first = await askColour(KEYS.alice);
  t.is(first.result?.resultType, 'input_required', JSON.stringify(first));
  const requestState = first.result!.requestState!;
  const before = member.answers.length;
  const stolen = await askColour(KEYS.carol, { inputResponses: { member_request: { action: 'accept', content: { colour: 'stolen' } } }, requestState });
  t.is(stolen.result?.resultType, 'input_required', "carol's retry started a call of her own, which asks her");
  t.is(member.answers.length, before, "carol's answer never reached alice's call");
  const own = await askColour(KEYS.alice, { inputResponses: { member_request: { action: 'accept', content: { colour: 'mine' } } }, requestState });
  t.is(own.result?.content?.[0]?.text, 'you chose mine', JSON.stringify(own));
  t.deepEqual(member.answers.slice(before), [{ action: 'accept', content: { colour: 'mine' } }]);
});
