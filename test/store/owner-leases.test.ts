// Per-owner leases on the embedded database (FerretDB, whose updates are not atomic): holders on
// four connections claiming at once never hold more slots than the limit between them; a lease
// that expired is taken by whoever needs it, one renewed is not; released slots are free again;
// a claim whose inserts landed but whose answer was lost leaves no slot taken.
import type { Db } from 'mongodb';
import test from 'ava';
import { databasePerFile } from '../helpers/database-per-file';
import { OwnerLeases } from '../../store/owner-leases';

const database = databasePerFile('owner-leases');

function leasesIn(kind: string, now?: () => number): OwnerLeases {
  return new OwnerLeases(database.connect().db('leases'), kind, now);
}

test('four holders claiming at once hold at most the limit between them, and all of it once they have asked enough', async (t) => {
  const holders = Array.from({ length: 4 }, (_, i) => ({ id: `p${i}`, leases: leasesIn('streams'), held: [] as string[] }));
  await Promise.all(holders.map(async (h) => {
    for (let round = 0; round < 6; round++) h.held.push(...await h.leases.claim('key:a', h.id, 4, 40, 60_000));
  }));
  const all = holders.flatMap((h) => h.held);
  t.is(new Set(all).size, all.length, 'no slot held twice');
  t.is(all.length, 40, `held ${holders.map((h) => h.held.length).join(' + ')}`);
  t.deepEqual(await holders[0]!.leases.claim('key:a', 'p0', 4, 40, 60_000), [], 'none left');
  t.is((await holders[1]!.leases.claim('key:b', 'p1', 4, 40, 60_000)).length, 4, 'another owner has slots of its own');
  t.is(await holders[2]!.leases.count('key:a'), 40);
  await holders[3]!.leases.release('p3', holders[3]!.held);
  await holders[3]!.leases.release('p3', holders[0]!.held.slice(0, 1)); // p0's, not p3's: kept
  t.is(await holders[0]!.leases.count('key:a'), 40 - holders[3]!.held.length);
});

test('a lease that expired is taken by whoever needs the slot; a renewed one is kept', async (t) => {
  let now = 1_000_000;
  const a = leasesIn('sessions', () => now);
  const b = leasesIn('sessions', () => now);
  const [kept] = await a.claim('key:s', 'session-1', 1, 2, 10_000);
  const [idle] = await a.claim('key:s', 'session-2', 1, 2, 10_000);
  t.deepEqual(await b.claim('key:s', 'session-3', 1, 2, 10_000), [], 'the cap of two is reached');
  now += 8_000;
  await a.renew('session-1', [kept!], 10_000);
  await a.renew('session-2', [kept!], 10_000); // not session-2's lease: nothing renewed
  now += 4_000;
  t.deepEqual(await b.claim('key:s', 'session-3', 1, 2, 10_000), [idle], 'the idle session\'s slot');
  t.deepEqual(await b.claim('key:s', 'session-4', 1, 2, 10_000), [], 'the renewed one is still held');
});

test('a claim whose inserts landed but whose answer was lost leaves none of the owner\'s slots taken', async (t) => {
  const db = database.connect().db('leases');
  // The database carries out the inserts; the answer never reaches the claim (a dropped connection).
  const losingAnswers = new Proxy(db, { get: (target, prop) => prop !== 'collection' ? Reflect.get(target, prop) : (name: string) => {
    const collection = target.collection(name);
    return new Proxy(collection, { get: (c, method) => {
      const value = Reflect.get(c, method);
      if (typeof value !== 'function') return value;
      if (method !== 'insertOne' && method !== 'insertMany') return value.bind(c);
      return async (...args: unknown[]) => {
        await value.apply(c, args);
        throw new Error('connection closed before the answer');
      };
    } });
  } }) as Db;
  const failing = new OwnerLeases(losingAnswers, 'streams');
  for (const count of [1, 3]) { // a lone insert and a bulk one
    await t.throwsAsync(failing.claim('key:lost', 'p1', count, 4, 60_000), { message: /before the answer/ });
    t.is(await failing.count('key:lost'), 0, `a failed claim of ${count}: nothing left leased`);
  }
  t.is((await leasesIn('streams').claim('key:lost', 'p2', 4, 4, 60_000)).length, 4, 'another holder gets every slot');
});
