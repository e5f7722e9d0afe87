// The per-owner token bucket on a clock of the test's own: a burst, then refusals that say when
// to come back (Retry-After and the IETF RateLimit fields), refilled at the rate; owners apart;
// memory bounded by the least recently used.
import test from 'ava';
import { OwnerRateLimit } from '../../callers/owner-rate-limit';

test('a burst passes, the next is refused with Retry-After, RateLimit-Policy and RateLimit; the bucket refills at the rate', (t) => {
  let now = 0;
  const limit = new OwnerRateLimit({ perSecond: 2, burst: 4 }, 100, () => now);
  for (let i = 0; i < 4; i++) t.is(limit.take('key:a'), null, `request ${i + 1}`);
  const refused = limit.take('key:a');
  t.truthy(refused);
  t.deepEqual(refused!.headers, { 'retry-after': '1', 'ratelimit-policy': '"owner";q=4;w=2', ratelimit: '"owner";r=0;t=1' });
  t.truthy(limit.take('key:a'), 'a refusal takes nothing, and gives nothing');
  t.is(limit.take('key:b'), null, 'another owner has a bucket of its own');
  now += 500; // one token back at 2/s
  t.is(limit.take('key:a'), null);
  t.truthy(limit.take('key:a'));
  now += 60_000;
  for (let i = 0; i < 4; i++) t.is(limit.take('key:a'), null, 'refilled to the burst, never beyond');
  t.truthy(limit.take('key:a'));
});

test('Retry-After is the time to the next token, in whole seconds', (t) => {
  const now = 0;
  const limit = new OwnerRateLimit({ perSecond: 0.1, burst: 1 }, 100, () => now);
  t.is(limit.take('key:a'), null);
  t.is(limit.take('key:a')!.retryAfterSeconds, 10);
  t.is(limit.take('key:a')!.headers['ratelimit-policy'], '"owner";q=1;w=10');
});

test('memory is bounded: past the most owners, the least recently seen bucket goes', (t) => {
  const now = 0;
  const limit = new OwnerRateLimit({ perSecond: 1, burst: 1 }, 3, () => now);
  for (const owner of ['a', 'b', 'c']) limit.take(owner);
  t.truthy(limit.take('a'), 'a is empty, and now the most recently seen');
  limit.take('d'); // b, the least recently seen, goes
  t.is(limit.size, 3);
  t.is(limit.take('b'), null, 'b starts again with a full bucket');
  t.truthy(limit.take('a'), 'a kept its empty bucket');
});
