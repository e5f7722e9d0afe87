// The toolset's pure rules: globs, who may use which tools (owner, admins, access rules by key,
// subject and role), a member's allow/deny, default prefixes, the MCP path, and the per-member
// list cache (never one owner's list for another, dropped on a new token or an invalidation).
import test from 'ava';
import type { Caller } from '../../callers/caller';
import { globMatches } from '../../contract/glob';
import { defaultPrefix, type ToolsetRecord } from '../../contract/toolset-record';
import { grantOf, grants, memberOffers } from '../../proxy/toolset/access';
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
  const team = grantOf(caller('key:team-a'), toolset)!;
  t.true(grants(team, 'pay__list_invoices'));
  t.false(grants(team, 'pay__create_invoice'));
  const analyst = grantOf(caller('oidc:zoe', { roles: ['analyst'] }), toolset)!;
  t.true(grants(analyst, 'pay__get_invoice'));
  t.false(grants(analyst, 'pay__list_invoices'));
  t.truthy(grantOf(caller('oidc:ann'), toolset));
  t.is(grantOf(caller('key:ann'), toolset), null, 'a key named like a user is another caller');
  t.is(grantOf(caller('oidc:team-a'), toolset), null);
  t.is(grantOf(caller(null), toolset), null);
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
