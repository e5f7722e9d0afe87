// 2025-11-25 toolset sessions against the embedded database (FerretDB), read and written by two
// stores on one database as two proxy replicas would: a session opened through one is served by the
// other; it is its owner's alone; the per-owner cap holds under concurrent opens through both, and
// a flood by one owner never refuses another; idle sessions are gone, and their slots free again;
// a member session is kept once when two replicas open one at the same time; an ended session is
// ended for both.
import test from 'ava';
import type { MongoClient } from 'mongodb';
import { ToolsetSessionStore } from '../../store/toolset-session-store';
import { startFerretClient } from '../helpers/ferret-client';

let client: MongoClient;
let close: () => Promise<void>;

test.before(async () => {
  ({ client, close } = await startFerretClient('toolset-sessions'));
});

test.after.always(async () => {
  await close?.();
});

const IDLE = 60_000;
const TOOLSET = '0d0d0d0d-0d0d-4d0d-8d0d-0d0d0d0d0d0d';
const MEMBER = 'a1a1a1a1-a1a1-4a1a-8a1a-a1a1a1a1a1a1';
const session = { toolsetId: TOOLSET, protocolVersion: '2025-11-25', clientCapabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } };

/** Two replicas' stores on one database, with one clock. */
function replicas(name: string, clock = { now: Date.now() }) {
  const db = client.db(name);
  return { one: new ToolsetSessionStore(db, () => clock.now), two: new ToolsetSessionStore(db, () => clock.now), clock };
}

test('a session opened through one replica is served by the other, to its owner only', async (t) => {
  const { one, two } = replicas('sessions-shared');
  const id = (await one.open('key:alice', session, 10, IDLE))!;
  t.truthy(id);
  const seen = await two.get('key:alice', id, IDLE);
  t.like(seen, { toolsetId: TOOLSET, protocolVersion: '2025-11-25', clientCapabilities: { elicitation: {} }, members: {} });
  t.is(await two.get('key:bob', id, IDLE), null, "another caller's use finds nothing");
  t.is(await two.get('key:alice', `${id.slice(0, -1)}${id.endsWith('A') ? 'B' : 'A'}`, IDLE), null, 'a guessed secret finds nothing');
  t.is(await two.get('key:alice', 'not-a-session-id', IDLE), null);
  const stored = await client.db('sessions-shared').collection('toolset_sessions').findOne({});
  t.false(JSON.stringify(stored).includes(id.split('.')[1]!), 'the secret part of the id is not stored');
});

test('the per-owner cap holds across replicas opening at once; a flood by one owner refuses nobody else', async (t) => {
  const { one, two } = replicas('sessions-cap');
  const opened = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 ? one : two).open('key:bob', session, 5, IDLE)));
  t.is(opened.filter((id) => id !== null).length, 5, 'exactly the cap, whichever replica opened them');
  t.is(await one.open('key:bob', session, 5, IDLE), null);
  t.truthy(await two.open('key:alice', session, 5, IDLE), "bob's flood does not refuse alice");
});

test('an idle session is gone, and its slot is free again', async (t) => {
  const { one, two, clock } = replicas('sessions-idle');
  const id = (await one.open('key:carol', session, 1, IDLE))!;
  t.is(await one.open('key:carol', session, 1, IDLE), null, 'at the cap');
  clock.now += IDLE / 2;
  await two.touch('key:carol', id);
  clock.now += IDLE / 2 + 1;
  t.truthy(await one.get('key:carol', id, IDLE), 'used meanwhile: still alive');
  clock.now += IDLE + 1;
  t.is(await one.get('key:carol', id, IDLE), null, 'idle past the timeout');
  t.truthy(await two.open('key:carol', session, 1, IDLE), 'the slot is free again');
  clock.now += IDLE + 1;
  t.is(await one.sweep(IDLE), 1, 'the sweep removes what expired');
});

test('two replicas opening a member session at once keep one; an ended session is ended for both', async (t) => {
  const { one, two } = replicas('sessions-members');
  const id = (await one.open('key:dan', session, 10, IDLE))!;
  const [a, b] = await Promise.all([
    one.keepMember('key:dan', id, MEMBER, { sessionId: 'member-a', protocolVersion: '2025-11-25' }, undefined),
    two.keepMember('key:dan', id, MEMBER, { sessionId: 'member-b', protocolVersion: '2025-11-25' }, undefined),
  ]);
  t.deepEqual(a, b, 'both use the one kept');
  const kept = a!.sessionId;
  t.is((await two.get('key:dan', id, IDLE))!.members[MEMBER]!.sessionId, kept);
  const renewed = await two.keepMember('key:dan', id, MEMBER, { sessionId: 'member-c', protocolVersion: '2025-11-25' }, a!);
  t.is(renewed!.sessionId, 'member-c', 'a forgotten member session is replaced');
  t.is((await one.keepMember('key:dan', id, MEMBER, { sessionId: 'member-d', protocolVersion: '2025-11-25' }, a!))!.sessionId, 'member-c', 'only once');
  t.is(await one.end('key:bob', id), null, "another caller cannot end it");
  t.like(await one.end('key:dan', id), { members: { [MEMBER]: { sessionId: 'member-c' } } });
  t.is(await two.get('key:dan', id, IDLE), null);
  t.is(await two.keepMember('key:dan', id, MEMBER, { sessionId: 'late', protocolVersion: '2025-11-25' }, undefined), null);
});
