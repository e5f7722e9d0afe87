// Ownership comes from the connector's workflow, not from its database record (issue 37, item
// 2). Anything that can write MongoDB (the embedded FerretDB takes no credentials) can set
// `created_by` on another owner's record; here the test does so directly, as alice's workload
// did, and every path that would let alice act on bob's connector or lend her bob's token still
// refuses: the MCP path, a toolset with bob's connector as a member (create and PATCH), connect,
// disconnect, delete, the record, its events and calls, and the consent page names bob.
import { readFileSync } from 'node:fs';
import test from 'ava';
import { MongoClient, type Db } from 'mongodb';
import { OWNER_MEMO } from '../../api/connector-commands';
import { workflowOwners } from '../../api/workflow-owners';
import { sha256Hex } from '../../callers/api-keys';
import { connectorWorkflowId } from '../../workflows/messages';
import { startOidcServer, startProtectedMcpServer, type OidcServer, type ProtectedMcpServer } from '../fixtures/oauth';
import { startToolsMcpServer, type ToolsMcpServer } from '../fixtures/tools-mcp-server';
import { openConsentPage } from '../helpers/oauth-service';
import { startTestStack, type ApiAnswer, type TestStack } from '../helpers/test-stack';

const KEYS = { alice: 'alice-key-owner-wf-3a4b', bob: 'bob-key-owner-wf-5c6d', ops: 'ops-key-owner-wf-7e8f' };
const as = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...extra });
const MCP_INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

let stack: TestStack;
let upstream: ToolsMcpServer;
let oidc: OidcServer;
let protectedServer: ProtectedMcpServer;
let mongo: MongoClient;
let db: Db;

test.before(async () => {
  upstream = await startToolsMcpServer({ name: 'up', tokens: { 'alice-token': ['alices_tool'], 'bob-token': ['bobs_secret_tool'] } });
  oidc = await startOidcServer();
  protectedServer = await startProtectedMcpServer({ issuer: oidc.issuer, jwksUri: oidc.jwksUri });
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([
      { subject: 'alice', sha256: sha256Hex(KEYS.alice) },
      { subject: 'bob', sha256: sha256Hex(KEYS.bob) },
      { subject: 'ops', sha256: sha256Hex(KEYS.ops), admin: true },
    ]),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
    CONNECTOR__RATE_LIMIT_PER_OWNER: 'off',
  });
  mongo = await MongoClient.connect(stack.mongoUri);
  db = mongo.db(stack.config.mongo.database);
});

test.after.always(async () => {
  await mongo?.close();
  await stack?.stop();
  await Promise.all([upstream?.close(), protectedServer?.close(), oidc?.close()]);
});

async function connected(key: string, token: string, name: string): Promise<string> {
  const created = await stack.api('POST', '/api/v1/connectors', { url: upstream.url, metadata: { name } }, as(key));
  if (created.status !== 201) throw new Error(`create: ${created.text}`);
  const connect = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: token }, as(key));
  if (connect.body?.state !== 'connected') throw new Error(`connect: ${connect.text}`);
  return created.body.id;
}

/** What a writer of the database does: the record now names alice (again, if a transition wrote it back). */
async function rewriteOwner(id: string): Promise<void> {
  const result = await db.collection('connectors').updateOne({ _id: id as never }, { $set: { created_by: 'key:alice', created_by_name: 'alice' } });
  if (result.matchedCount !== 1) throw new Error(`the record of ${id} was not rewritten`);
}

const seen = (what: string, res: ApiAnswer) => `${what} -> ${res.status}${res.body?.detail ? ` (${res.body.detail})` : ''}${res.body?.state ? ` state ${res.body.state}` : ''}`;

test("a record rewritten to name alice grants her nothing of bob's connector, on any path", async (t) => {
  const bobs = await connected(KEYS.bob, 'bob-token', 'Bobs');
  const alices = await connected(KEYS.alice, 'alice-token', 'Alices');
  const own = await stack.api('POST', '/api/v1/toolsets', { name: 'mine', members: [{ connector_id: alices, prefix: 'a' }] }, as(KEYS.alice));
  t.is(own.status, 201, own.text);
  await rewriteOwner(bobs);
  t.is((await db.collection('connectors').findOne({ _id: bobs as never }))?.created_by, 'key:alice', 'the database now says alice');

  const attempts: [string, () => Promise<ApiAnswer>, number][] = [
    ['GET the record', () => stack.api('GET', `/api/v1/connectors/${bobs}`, undefined, as(KEYS.alice)), 404],
    ['GET its events', () => stack.api('GET', `/api/v1/connectors/${bobs}/events`, undefined, as(KEYS.alice)), 404],
    ['GET its calls', () => stack.api('GET', `/api/v1/connectors/${bobs}/calls`, undefined, as(KEYS.alice)), 404],
    ['POST /mcp initialize', () => stack.api('POST', `/api/v1/connectors/${bobs}/mcp`, MCP_INIT, as(KEYS.alice, { accept: 'application/json, text/event-stream' })), 404],
    ['POST a toolset with it as a member', () => stack.api('POST', '/api/v1/toolsets', { name: 'grab', members: [{ connector_id: bobs, prefix: 'b' }] }, as(KEYS.alice)), 422],
    ['PATCH her toolset to add it', () => stack.api('PATCH', `/api/v1/toolsets/${own.body.id}`,
      { members: [{ connector_id: alices, prefix: 'a' }, { connector_id: bobs, prefix: 'b' }] }, as(KEYS.alice)), 422],
    ['connect it with her token', () => stack.api('POST', `/api/v1/connectors/${bobs}/connect`, { access_token: 'alice-token' }, as(KEYS.alice)), 404],
    ['disconnect it', () => stack.api('POST', `/api/v1/connectors/${bobs}/disconnect`, undefined, as(KEYS.alice)), 404],
    ['delete it', () => stack.api('DELETE', `/api/v1/connectors/${bobs}`, undefined, as(KEYS.alice)), 404],
  ];
  // Every attempt is made, then judged together: what alice got on each path is in the log. The
  // record is rewritten before each (a transition an attempt caused would have written it back).
  const got: Record<string, number> = {};
  for (const [what, attempt] of attempts) {
    await rewriteOwner(bobs);
    const res = await attempt();
    t.log(`alice: ${seen(what, res)}`);
    got[what] = res.status;
  }
  t.deepEqual(got, Object.fromEntries(attempts.map(([what, , expected]) => [what, expected])));
  const toolsets = await stack.api('GET', '/api/v1/toolsets?limit=100', undefined, as(KEYS.alice));
  t.deepEqual(toolsets.body.items.map((s: { members: { connector_id: string }[] }) => s.members.map((m) => m.connector_id)), [[alices]],
    'no toolset of alice holds bob\'s connector');
  const listed = await stack.api('GET', '/api/v1/connectors?limit=100', undefined, as(KEYS.alice));
  t.deepEqual(listed.body.items.map((c: { id: string }) => c.id), [alices]);

  // Bob's connector is as it was, and answered as his (the workflow's owner), though the record says alice.
  const bob = await stack.api('GET', `/api/v1/connectors/${bobs}`, undefined, as(KEYS.bob));
  t.like(bob.body, { state: 'connected', created_by: 'key:bob', created_by_name: 'bob' }, bob.text);
  const admin = await stack.api('GET', `/api/v1/connectors/${bobs}`, undefined, as(KEYS.ops));
  t.like(admin.body, { created_by: 'key:bob' });
  const events = await stack.api('GET', `/api/v1/connectors/${bobs}/events`, undefined, as(KEYS.bob));
  t.deepEqual(events.body.items.map((e: { actor: string }) => e.actor), ['key:bob', 'key:bob', 'key:bob'], 'alice left no trace in its audit');
});

test("the owner is read where Temporal answers without a worker: the workflow's memo, set at its start", async (t) => {
  const bobs = await connected(KEYS.bob, 'bob-token', 'Bobs memo');
  const described = await stack.temporal.workflow.getHandle(connectorWorkflowId(bobs)).describe();
  t.deepEqual(described.memo?.[OWNER_MEMO], { owner: 'key:bob', name: 'bob' });
  t.deepEqual(await workflowOwners(stack.temporal).ownerOf(bobs), { owner: 'key:bob', name: 'bob' });
  t.is(await workflowOwners(stack.temporal).ownerOf('00000000-0000-4000-8000-000000000000'), null, 'no workflow, no owner');
});

test('the disagreement is logged for the operator, naming both owners', async (t) => {
  const bobs = await connected(KEYS.bob, 'bob-token', 'Bobs logged');
  await rewriteOwner(bobs);
  await stack.api('GET', `/api/v1/connectors/${bobs}`, undefined, as(KEYS.bob));
  const lines = readFileSync(stack.logFile, 'utf8').split('\n').filter((l) => l.includes(bobs) && l.includes('workflowOwner'));
  t.true(lines.length >= 1, 'a warning names the connector');
  t.like(JSON.parse(lines[0]!), { level: 40, recordOwner: 'key:alice', workflowOwner: 'key:bob' });
});

test("the consent page names the workflow's owner, whatever the record says", async (t) => {
  const created = await stack.api('POST', '/api/v1/connectors', { url: protectedServer.url, metadata: { name: 'Docs' } }, as(KEYS.bob));
  t.is(created.status, 201, created.text);
  const connect = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, {}, as(KEYS.bob));
  t.is(connect.body.state, 'auth_required', connect.text);
  await rewriteOwner(created.body.id);
  const visit = await openConsentPage(stack.port, connect.body.auth_request.authorization_endpoint);
  t.regex(visit.page, /belongs to <strong>bob<\/strong>/);
  t.false(visit.page.includes('<strong>alice</strong>'));
});
