// Toolsets survive a crash of the whole stack: the compiled embedded stack (what `npm start` runs)
// as a process tree on a DATA_DIR, two owners' connectors and toolsets (members with prefixes and
// allow lists, access rules), a SIGKILL of the whole tree (no handler runs), a start on the same
// DATA_DIR. Then each toolset reads back as it was written, each owner lists only its own, the
// access rules still decide what each caller sees and may call, and the SDK's clients (both eras)
// list and call tools through each toolset again, with the members' tokens that survived too; a
// 2025 session open at the crash goes on (sessions are kept in the database).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { freePortBelowEphemeral } from '../../service/free-port';
import { startToolsMcpServer } from '../fixtures/tools-mcp-server';
import { keyCallers } from '../helpers/list-views';
import { startStackProcess } from '../helpers/stack-process';
import type { ApiCall } from '../helpers/test-stack';

const entry = 'dist/embedded.mjs';

type Headers = Record<string, string>;

async function connected(api: ApiCall, who: Headers, url: string, token: string, name: string): Promise<string> {
  const created = await api('POST', '/api/v1/connectors', { url, metadata: { name } }, who);
  if (created.status !== 201) throw new Error(`create: ${created.text}`);
  const connect = await api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: token }, who);
  if (connect.status !== 200 || connect.body.state !== 'connected') throw new Error(`connect: ${connect.text}`);
  return created.body.id;
}

async function v2Client(url: string, who: Headers) {
  const client = new ClientV2({ name: 'toolset-durability-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers: who } }));
  return client;
}

async function v1Client(url: string, who: Headers) {
  const client = new ClientV1({ name: 'toolset-durability-v1', version: '1.0.0' });
  const transport = new TransportV1(new URL(url), { requestInit: { headers: who } });
  await client.connect(transport);
  return { client, transport };
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;
const namesOf = async (client: { listTools(): Promise<{ tools: { name: string }[] }> }) => (await client.listTools()).tools.map((x) => x.name).sort();
const idsOf = (body: { items: { id: string }[] }) => body.items.map((x) => x.id).sort();

test.serial('a SIGKILL of the whole stack loses no toolset: members, access rules and owners as written; MCP through each again', async (t) => {
  t.timeout(10 * 60_000);
  const payments = await startToolsMcpServer({ name: 'payments', tokens: { 'pay-alice': ['create_invoice', 'refund', 'list_invoices'], 'pay-bob': ['bobs_invoice', 'bobs_refund'] } });
  const content = await startToolsMcpServer({ name: 'content', tokens: { 'content-alice': ['search', 'get_page'] } });
  t.teardown(() => Promise.all([payments.close(), content.close()]));
  const callers = keyCallers(['alice', 'bob', 'carol']);
  const [alice, bob, carol] = callers.headers as [Headers, Headers, Headers];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-toolset-crash-'));
  const logFile = path.join(dataDir, 'logs', 'stack.log');
  const port = await freePortBelowEphemeral();
  const env = { DATA_DIR: dataDir, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'info', ...callers.env };

  const first = await startStackProcess({ env, logFile, entry });
  let firstKilled = false;
  t.teardown(async () => {
    if (!firstKilled) await first.stop();
  });
  const alicePay = await connected(first.api, alice, payments.url, 'pay-alice', 'Payments');
  const aliceContent = await connected(first.api, alice, content.url, 'content-alice', 'Content');
  const bobPay = await connected(first.api, bob, payments.url, 'pay-bob', 'Payments');
  const made = await first.api('POST', '/api/v1/toolsets', {
    name: 'alice agent', description: 'billing and docs',
    members: [{ connector_id: alicePay, tools: { allow: ['*invoice*'], deny: ['refund'] } }, { connector_id: aliceContent, prefix: 'docs' }],
    access: [{ callers: ['key:carol'], allow: ['payments__list_*', 'docs__search'] }],
  }, alice);
  t.is(made.status, 201, made.text);
  const bobsMade = await first.api('POST', '/api/v1/toolsets', {
    name: 'bob agent', members: [{ connector_id: bobPay, prefix: 'bp', tools: { deny: ['bobs_refund'] } }],
    access: [{ callers: ['role:auditor'], allow: ['bp__*'] }],
  }, bob);
  t.is(bobsMade.status, 201, bobsMade.text);
  const aliceSet = made.body;

  // Used before the crash: a session of the toolset's own is open when the stack dies.
  const { client: before, transport: beforeTransport } = await v1Client(aliceSet.mcp_url, alice);
  t.is(textOf(await before.callTool({ name: 'payments__create_invoice', arguments: { text: 'before' } })), 'payments:create_invoice:before');
  const oldSession = beforeTransport.sessionId;
  t.truthy(oldSession);
  const beforeBob = await v2Client(bobsMade.body.mcp_url, bob);
  t.deepEqual(await namesOf(beforeBob), ['bp__bobs_invoice']);
  await beforeBob.close();
  // The last write before the crash: answered, so it must survive it.
  const bobsPatched = await first.api('PATCH', `/api/v1/toolsets/${bobsMade.body.id}`, JSON.stringify({ access: [{ callers: ['role:auditor', 'key:carol'], allow: ['bp__*'] }] }), { ...bob, 'content-type': 'application/merge-patch+json' });
  t.is(bobsPatched.status, 200, bobsPatched.text);
  const bobSet = bobsPatched.body;

  await first.kill();
  firstKilled = true;
  await before.close().catch(() => undefined);

  const second = await startStackProcess({ env, logFile, entry });
  t.teardown(() => second.stop());

  // As written: the whole record, members, access rules, owner and times.
  t.deepEqual((await second.api('GET', `/api/v1/toolsets/${aliceSet.id}`, undefined, alice)).body, aliceSet);
  t.deepEqual((await second.api('GET', `/api/v1/toolsets/${bobSet.id}`, undefined, bob)).body, bobSet);
  // Each owner sees only its own; an admin sees both.
  const alices = (await second.api('GET', '/api/v1/toolsets', undefined, alice)).body;
  t.deepEqual(idsOf(alices), [aliceSet.id]);
  t.is(alices.total_count, 1);
  t.deepEqual(idsOf((await second.api('GET', '/api/v1/toolsets', undefined, bob)).body), [bobSet.id]);
  t.deepEqual(idsOf((await second.api('GET', '/api/v1/toolsets', undefined, carol)).body), [], 'an access rule grants tools, not the resource');
  t.deepEqual(idsOf((await second.api('GET', '/api/v1/toolsets', undefined, callers.admin)).body), [aliceSet.id, bobSet.id].sort());
  t.is((await second.api('GET', `/api/v1/toolsets/${aliceSet.id}`, undefined, bob)).status, 404);
  t.is((await second.api('GET', `/api/v1/toolsets/${bobSet.id}`, undefined, alice)).status, 404);

  // The session open at the crash outlives it: sessions are kept in the database, not the process.
  const stale = await fetch(aliceSet.mcp_url, {
    method: 'POST',
    headers: { ...alice, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': oldSession!, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  t.is(stale.status, 200);
  const listed = (await stale.json()) as { result: { tools: { name: string }[] } };
  t.deepEqual(listed.result.tools.map((x) => x.name).sort(), ['docs__get_page', 'docs__search', 'payments__create_invoice', 'payments__list_invoices']);

  // MCP again through each toolset, both eras, the members' tokens intact.
  const aliceModern = await v2Client(aliceSet.mcp_url, alice);
  t.deepEqual(await namesOf(aliceModern), ['docs__get_page', 'docs__search', 'payments__create_invoice', 'payments__list_invoices']);
  t.is(textOf(await aliceModern.callTool({ name: 'payments__create_invoice', arguments: { text: 'after' } })), 'payments:create_invoice:after');
  t.is(textOf(await aliceModern.callTool({ name: 'docs__get_page', arguments: { text: 'p' } })), 'content:get_page:p');
  await aliceModern.close();
  t.is(payments.seenAuthorization.at(-1), 'Bearer pay-alice', "the member's own token survived");

  const { client: carolLegacy } = await v1Client(aliceSet.mcp_url, carol);
  t.deepEqual(await namesOf(carolLegacy), ['docs__search', 'payments__list_invoices'], 'the access rule still decides');
  t.is(textOf(await carolLegacy.callTool({ name: 'docs__search', arguments: { text: 'q' } })), 'content:search:q');
  const refused = await carolLegacy.callTool({ name: 'payments__create_invoice', arguments: {} }).then(() => null, (err: { code?: number }) => err);
  t.is(refused?.code, -32602);
  await carolLegacy.close();

  const { client: bobLegacy } = await v1Client(bobSet.mcp_url, bob);
  t.deepEqual(await namesOf(bobLegacy), ['bp__bobs_invoice']);
  t.is(textOf(await bobLegacy.callTool({ name: 'bp__bobs_invoice', arguments: { text: 'b' } })), 'payments:bobs_invoice:b');
  await bobLegacy.close();
  t.is(payments.seenAuthorization.at(-1), 'Bearer pay-bob');
  const carolModern = await v2Client(bobSet.mcp_url, carol);
  t.deepEqual(await namesOf(carolModern), ['bp__bobs_invoice'], 'the rule patched just before the crash grants carol');
  await carolModern.close();
  const foreign = await fetch(bobSet.mcp_url, {
    method: 'POST', headers: { ...alice, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
  });
  t.is(foreign.status, 404, "bob's toolset is unknown to alice, after the restart as before");

  // Writes go on: the compare-and-set on updated_at holds across the restart.
  const patched = await second.api('PATCH', `/api/v1/toolsets/${aliceSet.id}`, JSON.stringify({ description: 'after the crash' }), { ...alice, 'content-type': 'application/merge-patch+json' });
  t.is(patched.status, 200, patched.text);
  t.like(patched.body, { description: 'after the crash', members: aliceSet.members, access: aliceSet.access });
});
