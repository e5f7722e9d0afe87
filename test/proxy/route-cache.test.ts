// The route cache's policy, on a clock the test moves by hand.
import test from 'ava';
import type { Route } from '../../proxy/route';
import { RegistryUnavailableError, RouteCache } from '../../proxy/route-cache';

const connected = (token: string): Route => ({ kind: 'connected', target: 'http://127.0.0.1:1/mcp', token });

/** A loader whose answers the test releases one by one. */
function controlledLoader() {
  const calls: { id: string; resolve: (r: Route) => void; reject: (e: Error) => void }[] = [];
  const load = (id: string) => new Promise<Route>((resolve, reject) => calls.push({ id, resolve, reject }));
  return { load, calls };
}

function setup(options: ConstructorParameters<typeof RouteCache>[1] = {}) {
  const clock = { now: 0 };
  const loader = controlledLoader();
  const cache = new RouteCache(loader.load, { ttlMs: 1000, staleGraceMs: 500, failureGraceMs: 30_000, now: () => clock.now, ...options });
  return { clock, loader, cache };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('concurrent misses share one load, and the answer is reused while fresh', async (t) => {
  const { clock, loader, cache } = setup();
  const waiting = Promise.all([cache.get('a'), cache.get('a'), cache.get('a')]);
  t.is(loader.calls.length, 1);
  loader.calls[0]!.resolve(connected('one'));
  t.deepEqual(await waiting, [connected('one'), connected('one'), connected('one')]);
  clock.now = 999;
  t.deepEqual(await cache.get('a'), connected('one'));
  t.is(loader.calls.length, 1);
});

test('within the stale grace the old answer is served while one refresh runs', async (t) => {
  const { clock, loader, cache } = setup();
  const first = cache.get('a');
  loader.calls[0]!.resolve(connected('old'));
  await first;
  clock.now = 1200;
  t.deepEqual(await cache.get('a'), connected('old'));
  t.deepEqual(await cache.get('a'), connected('old'));
  t.is(loader.calls.length, 2, 'one background refresh');
  loader.calls[1]!.resolve(connected('new'));
  await settle();
  t.deepEqual(await cache.get('a'), connected('new'));
});

test('past the stale grace a request waits for the new answer', async (t) => {
  const { clock, loader, cache } = setup();
  const first = cache.get('a');
  loader.calls[0]!.resolve(connected('old'));
  await first;
  clock.now = 1600;
  const next = cache.get('a');
  loader.calls[1]!.resolve({ kind: 'not_connected', state: 'disconnected' });
  t.deepEqual(await next, { kind: 'not_connected', state: 'disconnected' });
});

test('when the registry fails, a connected route is served until the failure grace ends, then 503', async (t) => {
  const { clock, loader, cache } = setup();
  const first = cache.get('a');
  loader.calls[0]!.resolve(connected('known'));
  await first;

  clock.now = 5000;
  const during = cache.get('a');
  loader.calls[1]!.reject(new Error('registry down'));
  t.deepEqual(await during, connected('known'));

  clock.now = 5500; // failed moments ago: answered at once, one retry in the background
  t.deepEqual(await cache.get('a'), connected('known'));
  t.is(loader.calls.length, 3);
  loader.calls[2]!.reject(new Error('still down'));
  await settle();

  clock.now = 30_001;
  const late = cache.get('a');
  loader.calls.at(-1)!.reject(new Error('still down'));
  const error = await t.throwsAsync(late);
  t.true(error instanceof RegistryUnavailableError);
  t.is((error as RegistryUnavailableError).status, 503);
});

test('when the registry fails, unknown ids and routes that were not connected are 503', async (t) => {
  const { clock, loader, cache } = setup();
  const unknown = cache.get('new');
  loader.calls[0]!.reject(new Error('registry down'));
  t.is(((await t.throwsAsync(unknown)) as RegistryUnavailableError).status, 503);

  const pending = cache.get('b');
  loader.calls[1]!.resolve({ kind: 'not_connected', state: 'auth_required' });
  await pending;
  clock.now = 2000;
  const again = cache.get('b');
  loader.calls[2]!.reject(new Error('registry down'));
  t.is(((await t.throwsAsync(again)) as RegistryUnavailableError).status, 503);
});

test('a registry that hangs counts as failed after the load timeout', async (t) => {
  const cache = new RouteCache(() => new Promise<Route>(() => undefined), { loadTimeoutMs: 20 });
  const error = await t.throwsAsync(cache.get('a'));
  t.true(error instanceof RegistryUnavailableError);
});

test('invalidate forgets the answer, and a load already running does not bring it back', async (t) => {
  const { loader, cache } = setup();
  const first = cache.get('a');
  loader.calls[0]!.resolve(connected('one'));
  await first;
  cache.invalidate('a');
  const reload = cache.get('a');
  t.is(loader.calls.length, 2);
  cache.invalidate('a'); // e.g. a disconnect while the registry is being asked
  loader.calls[1]!.resolve(connected('read-before-disconnect'));
  await reload;
  const fresh = cache.get('a');
  t.is(loader.calls.length, 3);
  loader.calls[2]!.resolve({ kind: 'not_connected', state: 'disconnected' });
  t.deepEqual(await fresh, { kind: 'not_connected', state: 'disconnected' });
});

test('the cache holds at most maxEntries ids', async (t) => {
  const cache = new RouteCache(async () => ({ kind: 'not_found' }), { maxEntries: 3 });
  for (const id of ['a', 'b', 'c', 'd', 'e']) await cache.get(id);
  t.is(cache.size, 3);
});

test('a RouteSource can be the loader', async (t) => {
  const cache = new RouteCache({ get: async (id) => connected(id) });
  t.deepEqual(await cache.get('x'), connected('x'));
});

test('peek answers a fresh entry synchronously, a stale one while refreshing it, and nothing it would have to wait for', async (t) => {
  let now = 0;
  let loads = 0;
  const cache = new RouteCache(async () => {
    loads++;
    return { kind: 'connected', target: `http://127.0.0.1:1/mcp?v=${loads}` };
  }, { ttlMs: 1000, staleGraceMs: 500, now: () => now });
  t.is(cache.peek('a'), undefined, 'not cached: get must load it');
  await cache.get('a');
  t.is((cache.peek('a') as { target: string }).target, 'http://127.0.0.1:1/mcp?v=1');
  now = 1200;
  t.is((cache.peek('a') as { target: string }).target, 'http://127.0.0.1:1/mcp?v=1', 'stale within the grace');
  await new Promise((resolve) => setImmediate(resolve));
  t.is(loads, 2, 'and refreshed in the background');
  now = 5000;
  t.is(cache.peek('a'), undefined, 'past the grace: get decides');
  cache.invalidate('a');
  t.is(cache.peek('a'), undefined);
});
