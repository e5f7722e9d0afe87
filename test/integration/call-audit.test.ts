// The per-call audit on the real embedded stack: an MCP SDK client talks to the reference
// server (@modelcontextprotocol/server-everything) through the proxy with caller authentication
// on, and GET /api/v1/connectors/{id}/calls lists each call with its caller, session, method,
// tool name, status, JSON-RPC error and bytes; the filters and paging work; another owner gets
// 404; calls expire after CONNECTOR__CALL_AUDIT_DAYS; no argument or result is ever stored.
import test from 'ava';
import { MongoClient } from 'mongodb';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sha256Hex } from '../../callers/api-keys';
import { CallAuditStore } from '../../store/call-audit-store';
import type { Call } from '../../contract/call-record';
import { startEverythingServer, type EverythingServer } from '../fixtures/everything-server';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';

const KEYS = { alice: 'alice-key-audit-1a2b3c', bob: 'bob-key-audit-4d5e6f' };
const as = (key: string) => ({ authorization: `Bearer ${key}` });
const ARGUMENT = 'argument-value-never-stored-7c1d';
const LARGE = `${'large-argument-'.repeat(700)}end`; // over the 4 KiB the proxy reads
const DAYS = 7;

let stack: TestStack;
let everything: EverythingServer;
let mongo: MongoClient;
let connectorId: string;
let calls: Call[];

test.before(async () => {
  everything = await startEverythingServer();
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'alice', sha256: sha256Hex(KEYS.alice) }, { subject: 'bob', sha256: sha256Hex(KEYS.bob) }]),
    CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'false',
    CONNECTOR__CALL_AUDIT_DAYS: String(DAYS),
  });
  mongo = await MongoClient.connect(stack.mongoUri);

  const { body: c } = await stack.api('POST', '/api/v1/connectors', { url: everything.url }, as(KEYS.alice));
  connectorId = c.id;
  const connected = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, {}, as(KEYS.alice));
  if (connected.status !== 200) throw new Error(`connect: ${connected.text}`);

  const client = new Client({ name: 'audit-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(c.mcp_url), { requestInit: { headers: as(KEYS.alice) } });
  await client.connect(transport);
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { message: ARGUMENT } });
  await client.callTool({ name: 'echo', arguments: { message: LARGE } });
  // A method the server does not have: a JSON-RPC error (-32601) in a 200 answer.
  await client.request({ method: 'no/such-method', params: {} }, z.object({})).catch(() => undefined);
  await transport.terminateSession();
  await client.close();
  // initialize, notifications/initialized, tools/list, two tools/call, the error, the DELETE, and perhaps the GET stream
  const listed = async () => (await stack.api('GET', `/api/v1/connectors/${c.id}/calls?limit=100`, undefined, as(KEYS.alice))).body.items as Call[];
  await eventually(async () => ((await listed()).length >= 7 ? true : undefined), 20_000, 'the calls in the audit');
  // The GET stream's call is written when it closes, perhaps a batch later: wait for the list to settle.
  calls = await listed();
  await eventually(async () => {
    await new Promise((r) => setTimeout(r, 1_500));
    const now = await listed();
    const settled = now.length === calls.length;
    calls = now;
    return settled || undefined;
  }, 20_000, 'the audit to settle');
});

test.after.always(async () => {
  await mongo?.close();
  await stack?.stop();
  await everything?.stop();
});

const byMethod = (method: string) => calls.filter((c) => c.rpc_method === method);

test.serial('each call the SDK client made is listed, newest first, with caller, session, status and bytes', (t) => {
  const initialize = byMethod('initialize');
  t.is(initialize.length, 1);
  const session = initialize[0]!.session_id;
  t.truthy(session, 'the session the answer to initialize gave');
  t.is(byMethod('notifications/initialized')[0]?.status, 202);
  t.is(byMethod('tools/list').length, 1);
  const toolCalls = byMethod('tools/call');
  t.deepEqual(toolCalls.map((c) => c.rpc_name), ['echo', 'echo']);
  const error = byMethod('no/such-method');
  t.is(error.length, 1);
  t.is(error[0]!.rpc_error_code, -32601);
  t.is(error[0]!.status, 200);
  t.true(calls.some((c) => c.http_method === 'DELETE' && c.body === 'none' && c.session_id === session));
  for (const call of calls.filter((c) => c.http_method === 'POST')) {
    t.is(call.caller, 'key:alice', 'the qualified owner');
    t.is(call.body, 'message');
    t.true(call.request_bytes > 0, `${call.rpc_method} request bytes`);
    t.true(call.response_bytes > 0 || call.status === 202, `${call.rpc_method} response bytes`);
    t.true(call.duration_ms >= 0);
    if (call.rpc_method !== 'initialize') t.is(call.session_id, session);
  }
  t.true(toolCalls.every((c) => c.rpc_error_code === null && c.status === 200));
  // Newest first by when each call ended (its arrival plus its duration, to the millisecond).
  const ends = calls.map((c) => Date.parse(c.time) + c.duration_ms);
  t.true(ends.every((end, i) => i === 0 || end <= ends[i - 1]! + 2), `ordered by end: ${ends.join(', ')}`);
});

test.serial('a body larger than the prefix the proxy reads still gives its method and name', (t) => {
  const large = byMethod('tools/call').find((c) => c.request_bytes > LARGE.length);
  t.truthy(large);
  t.is(large!.rpc_name, 'echo');
  t.true(large!.response_bytes > LARGE.length, 'every byte of the answer is counted');
});

test.serial('filters: method, status, error, time', async (t) => {
  const list = async (query: string) => {
    const res = await stack.api('GET', `/api/v1/connectors/${connectorId}/calls?${query}`, undefined, as(KEYS.alice));
    t.is(res.status, 200, res.text);
    return res.body.items as Call[];
  };
  t.deepEqual((await list('method=tools/call')).map((c) => c.id), byMethod('tools/call').map((c) => c.id));
  t.deepEqual((await list('status=202')).map((c) => c.rpc_method), ['notifications/initialized']);
  t.true((await list('status=2xx')).length >= 6);
  t.deepEqual((await list('error=true')).map((c) => c.rpc_method), ['no/such-method']);
  t.is((await list('error=false')).length, calls.length - 1);
  const times = calls.map((c) => Date.parse(c.time));
  const [first, last] = [Math.min(...times), Math.max(...times)];
  const iso = (ms: number) => new Date(ms).toISOString();
  t.is((await list(`since=${iso(last + 1)}`)).length, 0);
  t.is((await list(`until=${iso(first - 1)}`)).length, 0);
  t.is((await list(`since=${iso(first)}&until=${iso(last)}&limit=100`)).length, calls.length);
  const middle = times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  t.deepEqual((await list(`since=${iso(middle)}&limit=100`)).map((c) => c.id), calls.filter((c) => Date.parse(c.time) >= middle).map((c) => c.id));
  const bad = await stack.api('GET', `/api/v1/connectors/${connectorId}/calls?status=600`, undefined, as(KEYS.alice));
  t.is(bad.status, 422);
  t.is((await stack.api('GET', `/api/v1/connectors/${connectorId}/calls?since=yesterday`, undefined, as(KEYS.alice))).status, 422);
});

test.serial('paging walks every call once with the page token', async (t) => {
  const seen: string[] = [];
  let token: string | null = null;
  do {
    const query: string = token ? `limit=3&page_token=${encodeURIComponent(token)}` : 'limit=3';
    const res = await stack.api('GET', `/api/v1/connectors/${connectorId}/calls?${query}`, undefined, as(KEYS.alice));
    t.is(res.status, 200);
    t.true(res.body.items.length <= 3);
    seen.push(...res.body.items.map((c: Call) => c.id));
    token = res.body.next_page_token;
    t.is(res.body.has_more, token !== null);
  } while (token);
  t.deepEqual(seen, calls.map((c) => c.id));
  const forged = await stack.api('GET', `/api/v1/connectors/${connectorId}/calls?page_token=other:0000`, undefined, as(KEYS.alice));
  t.is(forged.status, 422);
  const elsewhere = calls[0]!.id.replace(connectorId, '00000000-0000-4000-8000-000000000000');
  t.is((await stack.api('GET', `/api/v1/connectors/${connectorId}/calls?page_token=${elsewhere}`, undefined, as(KEYS.alice))).status, 422, 'a token into another connector\'s calls');
});

test.serial("another owner's connector, and one that does not exist, are 404", async (t) => {
  t.is((await stack.api('GET', `/api/v1/connectors/${connectorId}/calls`, undefined, as(KEYS.bob))).status, 404);
  t.is((await stack.api('GET', '/api/v1/connectors/00000000-0000-4000-8000-000000000000/calls', undefined, as(KEYS.alice))).status, 404);
  t.is((await stack.api('GET', `/api/v1/connectors/${connectorId}/calls`)).status, 401);
});

test.serial('no argument or result value reaches the stored calls', async (t) => {
  const docs = await mongo.db(stack.config.mongo.database).collection('connector_calls').find({}).toArray();
  t.true(docs.flatMap((d) => (d.calls ? JSON.parse(d.calls as string) as unknown[] : [])).length >= calls.length, 'the calls are all there');
  const stored = JSON.stringify(docs);
  t.false(stored.includes(ARGUMENT));
  t.false(stored.includes('large-argument'));
  t.false(stored.includes('Echo:'), 'the echo tool\'s result');
});

test.serial('calls are kept CONNECTOR__CALL_AUDIT_DAYS: a TTL index where the database has them, the sweep where not', async (t) => {
  const db = mongo.db(stack.config.mongo.database);
  const store = new CallAuditStore(db, DAYS);
  const ttl = await store.ensureIndexes();
  const index = (await db.collection('connector_calls').indexes()).find((i) => JSON.stringify(i.key) === '{"at":1}');
  t.truthy(index, 'an index on the call time');
  if (ttl) t.is(index!.expireAfterSeconds, DAYS * 86_400);
  else t.is(index!.expireAfterSeconds, undefined, 'FerretDB: a plain index; the sweep holds the bound');
  t.is(store.expiry.afterSeconds, DAYS * 86_400);
  const first = Date.parse(calls.at(-1)!.time);
  t.is(await store.sweepExpired(new Date(first + (DAYS * 86_400 - 60) * 1000)), 0, 'nothing younger than the retention goes');
  const ended = Math.max(...calls.map((c) => Date.parse(c.time) + c.duration_ms));
  t.true(await store.sweepExpired(new Date(ended + DAYS * 86_400 * 1000 + 1000)) >= 2, 'the batches and the connector\'s head');
  const left = await stack.api('GET', `/api/v1/connectors/${connectorId}/calls`, undefined, as(KEYS.alice));
  t.is(left.status, 200);
  t.deepEqual(left.body, { items: [], has_more: false, next_page_token: null });
});
