// A toolset's bounds on the real stack (issue 37): an owner's toolsets are capped
// (CONNECTOR__MAX_TOOLSETS_PER_OWNER), and the cap holds under concurrent creates and is given
// back on delete; a toolset is at most 64 KiB however its lists combine; and a glob with more
// stars than the matcher takes (the pattern that took 32 s as a regular expression) is refused
// with 422, in access rules and members' filters alike.
import test from 'ava';
import { sha256Hex } from '../../callers/api-keys';
import { startToolsMcpServer, type ToolsMcpServer } from '../fixtures/tools-mcp-server';
import { undeclaredAnswers } from '../helpers/declared-answers';
import { startTestStack, type TestStack } from '../helpers/test-stack';

const KEYS = { alice: 'alice-key-toolset-limits-1a2b', bob: 'bob-key-toolset-limits-3c4d' };
const as = (key: string) => ({ authorization: `Bearer ${key}` });
const LIMIT = 5;
const HOSTILE_GLOB = '*a'.repeat(16) + '*c';

let stack: TestStack;
let upstream: ToolsMcpServer;
let alices = '';

test.before(async () => {
  upstream = await startToolsMcpServer({ name: 'up', tokens: { 't': ['echo'] } });
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'alice', sha256: sha256Hex(KEYS.alice) }, { subject: 'bob', sha256: sha256Hex(KEYS.bob) }]),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
    CONNECTOR__RATE_LIMIT_PER_OWNER: 'off',
    CONNECTOR__MAX_TOOLSETS_PER_OWNER: String(LIMIT),
  });
  const created = await stack.api('POST', '/api/v1/connectors', { url: upstream.url, metadata: { name: 'Up' } }, as(KEYS.alice));
  if (created.status !== 201) throw new Error(created.text);
  alices = created.body.id;
});

test.after('no handler answered a status or problem type its operation does not declare', (t) => {
  t.deepEqual(undeclaredAnswers(stack.logFile), []);
});

test.after.always(async () => {
  await stack?.stop();
  await upstream?.close();
});

const toolset = (name: string, extra: Record<string, unknown> = {}) => ({ name, members: [{ connector_id: alices, prefix: 'up' }], ...extra });

test.serial('the toolset quota holds under concurrent creates, and a delete gives a slot back', async (t) => {
  const answers = await Promise.all(Array.from({ length: 3 * LIMIT }, (_, i) => stack.api('POST', '/api/v1/toolsets', toolset(`ts-${i}`), as(KEYS.alice))));
  const statuses = answers.map((a) => a.status);
  t.is(statuses.filter((s) => s === 201).length, LIMIT, JSON.stringify(statuses));
  t.is(statuses.filter((s) => s === 429).length, 2 * LIMIT);
  const refused = answers.find((a) => a.status === 429)!;
  t.is(refused.body.type, 'https://connector-registry.dev/problems/quota-exceeded');
  t.regex(refused.body.detail, /CONNECTOR__MAX_TOOLSETS_PER_OWNER/);
  const listed = await stack.api('GET', '/api/v1/toolsets?limit=100', undefined, as(KEYS.alice));
  t.is(listed.body.total_count, LIMIT);
  // Another owner is not counted with alice.
  t.is((await stack.api('POST', '/api/v1/toolsets', { name: 'bobs', members: [] }, as(KEYS.bob))).status, 201);

  const one = answers.find((a) => a.status === 201)!.body.id;
  t.is((await stack.api('DELETE', `/api/v1/toolsets/${one}`, undefined, as(KEYS.alice))).status, 204);
  t.is((await stack.api('POST', '/api/v1/toolsets', toolset('after-delete'), as(KEYS.alice))).status, 201);
  t.is((await stack.api('POST', '/api/v1/toolsets', toolset('one-too-many'), as(KEYS.alice))).status, 429);
});

test.serial('a toolset is at most 64 KiB: a create or a PATCH past it answers 422', async (t) => {
  const patterns = Array.from({ length: 256 }, (_, i) => `tool_${String(i).padStart(4, '0')}_${'x'.repeat(240)}`);
  const big = { access: Array.from({ length: 4 }, () => ({ callers: ['key:bob'], allow: patterns })) };
  const created = await stack.api('POST', '/api/v1/toolsets', { name: 'big', members: [], ...big }, as(KEYS.bob));
  t.is(created.status, 422, created.text.slice(0, 200));
  t.regex(created.body.detail, /at most 65536 are allowed/);
  const small = await stack.api('GET', '/api/v1/toolsets?limit=1', undefined, as(KEYS.bob));
  const id = small.body.items[0].id;
  const patched = await stack.api('PATCH', `/api/v1/toolsets/${id}`, big, as(KEYS.bob));
  t.is(patched.status, 422);
  t.deepEqual((await stack.api('GET', `/api/v1/toolsets/${id}`, undefined, as(KEYS.bob))).body.access, [], 'unchanged');
});

test.serial('a glob with more than 8 stars is refused with 422, in access rules and member filters', async (t) => {
  const inRule = await stack.api('POST', '/api/v1/toolsets', { name: 'g', members: [], access: [{ callers: ['key:alice'], allow: [HOSTILE_GLOB] }] }, as(KEYS.bob));
  t.is(inRule.status, 422);
  t.regex(JSON.stringify(inRule.body.errors), /access\.0\.allow\.0.*at most 8 \*/);
  const inCaller = await stack.api('POST', '/api/v1/toolsets', { name: 'g', members: [], access: [{ callers: [`key:${HOSTILE_GLOB}`], allow: ['*'] }] }, as(KEYS.bob));
  t.is(inCaller.status, 422);
  const inFilter = await stack.api('POST', '/api/v1/toolsets', toolset('g', { members: [{ connector_id: alices, tools: { deny: [HOSTILE_GLOB] } }] }), as(KEYS.alice));
  t.is(inFilter.status, 422);
  const eight = '*a'.repeat(8);
  const ok = await stack.api('PATCH', `/api/v1/toolsets/${(await stack.api('GET', '/api/v1/toolsets?limit=1', undefined, as(KEYS.bob))).body.items[0].id}`,
    { access: [{ callers: ['key:alice'], allow: [eight] }] }, as(KEYS.bob));
  t.is(ok.status, 200, 'eight stars are within the cap');
});
