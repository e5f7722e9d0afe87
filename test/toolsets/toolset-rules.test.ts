// The toolset's pure rules: globs, who may use which tools (owner, admins, access rules by key,
// subject and role), a member's allow/deny, default prefixes, the MCP path, and the per-member
// list cache (never one owner's list for another, dropped on a new token or an invalidation).
import test from 'ava';
import type { Caller } from '../../callers/caller';
import { globMatches } from '../../contract/glob';
import { CreateToolsetSchema, PREFIX, defaultPrefix, type ToolsetRecord } from '../../contract/toolset-record';
import { grantOf, grants, memberNamed, memberOffers } from '../../proxy/toolset/access';
import { ToolCatalog } from '../../proxy/toolset/tool-catalog';
import { toolsetIdFromPath } from '../../proxy/toolset/toolset-path';
import type { ConnectedRoute } from '../../proxy/route';

const ID = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const toolset: ToolsetRecord = {
  id: ID, name: 't', description: '', created_by: 'key:alice', created_at: '', updated_at: '',
  members: [{ connector_id: 'c1', prefix: 'pay', tools: { allow: ['*invoice*'], deny: ['void_invoice'] } }],
  access: [
    { callers: ['key:team-*'], allow: ['pay__list_*'] },
    { callers: ['role:analyst', 'oidc:ann'], allow: ['pay__get_invoice'] },
  ],
};
const caller = (subject: string | null, extra: Partial<Caller> = {}): Caller => ({ subject, displayName: subject, admin: false, ...extra });

test('globs: * any run, ? one character, everything else literal', (t) => {
  t.true(globMatches('pay__*', 'pay__create'));
  t.true(globMatches('a?c', 'abc'));
  t.false(globMatches('a?c', 'abbc'));
  t.false(globMatches('a.c', 'abc'), 'a dot is a dot');
  t.false(globMatches('pay__*', 'xpay__create'), 'anchored');
});

test('the owner and admins may use everything; others what the rules naming them grant; nobody else anything', (t) => {
  t.deepEqual(grantOf(caller('key:alice'), toolset), { all: true });
  t.deepEqual(grantOf(caller('key:ops', { admin: true }), toolset), { all: true });
  const pay = toolset.members[0]!;
  const team = grantOf(caller('key:team-a'), toolset)!;
  t.true(grants(team, pay, 'list_invoices'));
  t.false(grants(team, pay, 'create_invoice'));
  const analyst = grantOf(caller('oidc:zoe', { roles: ['analyst'] }), toolset)!;
  t.true(grants(analyst, pay, 'get_invoice'));
  t.false(grants(analyst, pay, 'list_invoices'));
  t.truthy(grantOf(caller('oidc:ann'), toolset));
  t.is(grantOf(caller('key:ann'), toolset), null, 'a key named like a user is another caller');
  t.is(grantOf(caller('oidc:team-a'), toolset), null);
  t.is(grantOf(caller(null), toolset), null);
});

test('no __ in a prefix, nor _ at its end: a prefixed name reads one way, a grant by member and tool reaches that member only', (t) => {
  for (const bad of ['gh__admin', 'gh_', '__', 'a___b', 'x'.repeat(33), 'GH', '']) t.false(PREFIX.test(bad), bad);
  for (const good of ['gh', 'gh_admin', '_gh', 'gh-admin', 'a_b_c']) t.true(PREFIX.test(good), good);
  const made = CreateToolsetSchema.safeParse({ name: 't', members: [{ connector_id: ID, prefix: 'gh__admin' }] });
  t.false(made.success, 'the API refuses such a prefix');
  const two: ToolsetRecord = {
    ...toolset, access: [{ callers: ['key:bob'], allow: ['gh__*'] }],
    members: [{ connector_id: 'c1', prefix: 'gh', tools: { allow: ['*'], deny: [] } }, { connector_id: 'c2', prefix: 'gh_x', tools: { allow: ['*'], deny: [] } }],
  };
  t.is(memberNamed(two, 'gh___x__y'), null, 'an own name with __ is never served');
  t.is(memberNamed(two, 'gh___x')?.own, '_x', 'read at the first __');
  t.is(memberNamed(two, 'gh__issues')?.member.prefix, 'gh');
  t.is(memberNamed(two, 'gh_x__issues')?.member.prefix, 'gh_x');
  t.is(memberNamed(two, 'gh__'), null);
  t.is(memberNamed(two, 'nobody__x'), null);
  const bob = grantOf(caller('key:bob'), two)!;
  t.true(grants(bob, two.members[0]!, 'issues'));
  t.false(grants(bob, two.members[1]!, 'issues'), 'gh__* is member gh, not gh_x');
  t.true(grants({ all: false, patterns: ['*__read*'] }, two.members[1]!, 'read_file'), 'any member, tools read*');
  t.true(grants({ all: false, patterns: ['gh*'] }, two.members[1]!, 'issues'), 'a pattern without __ is matched over the whole name');
  t.is(defaultPrefix({ id: ID, metadata: { name: 'My__Tools_' } }), 'my_tools');
});

test("a member's allow and deny apply to its own names", (t) => {
  const member = toolset.members[0]!;
  t.true(memberOffers(member, 'create_invoice'));
  t.false(memberOffers(member, 'void_invoice'));
  t.false(memberOffers(member, 'refund'));
});

test("the default prefix: a slug of the connector's name, else its id's hex digits", (t) => {
  t.is(defaultPrefix({ id: ID, metadata: { name: 'Content Hub (EU)' } }), 'content-hub-eu');
  t.is(defaultPrefix({ id: ID, metadata: { name: '!!!' } }), ID.replace(/-/g, ''));
  t.is(defaultPrefix({ id: ID, metadata: {} }).length, 32);
  t.regex(defaultPrefix({ id: ID, metadata: { name: 'x'.repeat(80) } }), /^[a-z0-9_-]{1,32}$/);
});

test('the toolset MCP path', (t) => {
  t.is(toolsetIdFromPath(`/api/v1/toolsets/${ID}/mcp`), ID);
  t.is(toolsetIdFromPath(`/api/v1/toolsets/${ID.toUpperCase()}/mcp?x=1`), ID);
  t.is(toolsetIdFromPath(`/api/v1/toolsets/${ID}/mcp/extra`), null);
  t.is(toolsetIdFromPath(`/api/v1/connectors/${ID}/mcp`), null);
});

test("the list cache: per owner, per token, and dropped by an invalidation", async (t) => {
  const catalog = new ToolCatalog(60_000);
  let fetches = 0;
  const fetch = (name: string) => async () => {
    fetches += 1;
    return { tools: [{ name, inputSchema: { type: 'object' as const } }] };
  };
  const route = (owner: string, sealedToken: string): ConnectedRoute => ({ kind: 'connected', target: 'https://mcp.example/mcp', owner, sealedToken });
  t.is((await catalog.tools('c1', route('key:alice', 's1'), fetch('alice')))[0]!.name, 'alice');
  t.is((await catalog.tools('c1', route('key:alice', 's1'), fetch('again')))[0]!.name, 'alice', 'served from the cache');
  t.is((await catalog.tools('c1', route('key:bob', 's1'), fetch('bob')))[0]!.name, 'bob', "never alice's for bob");
  t.is((await catalog.tools('c1', route('key:alice', 's2'), fetch('new token')))[0]!.name, 'new token');
  catalog.invalidate('c1');
  t.is(catalog.sizeOf('c1'), 0);
  t.is((await catalog.tools('c1', route('key:alice', 's2'), fetch('after')))[0]!.name, 'after');
  t.is(fetches, 4);
  // A member that says its list holds for no time (ttlMs 0) is asked every time.
  const zero = async () => {
    fetches += 1;
    return { tools: [], ttlMs: 0 };
  };
  await catalog.tools('c2', route('key:alice', 's1'), zero);
  await catalog.tools('c2', route('key:alice', 's1'), zero);
  t.is(fetches, 6);
});
