// The per-owner rate across processes, against a shared bucket kept in memory (A FAKE of the
// database's ledger, store/rate-ledger.ts, with its arithmetic; the ledger itself is tested on
// FerretDB in test/store/rate-ledger.test.ts): two processes together admit the policy once, not
// once each; tokens a quiet process holds go back for the other; a bucket that cannot be reached
// leaves each process limiting on its own.
import test from 'ava';
import { OwnerRateLimit } from '../../callers/owner-rate-limit';
import type { SharedRateBucket } from '../../callers/shared-rate-limit';

function memoryBucket(policy: { perSecond: number; burst: number }, now: () => number) {
  const tat = new Map<string, number>();
  const ms = 1000 / policy.perSecond;
  let down = false;
  const bucket: SharedRateBucket & { down(on: boolean): void } = {
    down: (on) => (down = on),
    async take(owner, want, owed) {
      if (down) throw new Error('database down');
      const t = now();
      const charged = Math.max(Math.max(tat.get(owner) ?? 0, t) + owed * ms, t);
      const granted = Math.max(0, Math.min(want, Math.floor((t + policy.burst * ms - charged) / ms)));
      tat.set(owner, charged + granted * ms);
      return { granted, nextAt: charged + granted * ms - policy.burst * ms + ms };
    },
  };
  return bucket;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('two processes sharing the bucket admit the burst once between them, not once each', async (t) => {
  const now = 1_000_000;
  const policy = { perSecond: 10, burst: 20 };
  const bucket = memoryBucket(policy, () => now);
  const processes = [0, 1].map(() => new OwnerRateLimit(policy, 100, () => now, { bucket }));
  t.teardown(() => processes.forEach((p) => p.close()));
  let admitted = 0;
  for (let i = 0; i < 200; i++) {
    if (processes[i % 2]!.take('key:a') === null) admitted++;
    await settle();
  }
  // A chunk of credit at most per process over the policy (here 2 tokens per process).
  t.true(admitted >= 20 && admitted <= 24, `admitted ${admitted} of 200 with a burst of 20 and the clock stopped`);
  const alone = new OwnerRateLimit(policy, 100, () => now);
  const own = [alone, new OwnerRateLimit(policy, 100, () => now)];
  let apart = 0;
  for (let i = 0; i < 200; i++) if (own[i % 2]!.take('key:a') === null) apart++;
  t.is(apart, 40, 'buckets of their own admit the burst in each process');
  const refused = processes[0]!.take('key:a');
  t.truthy(refused);
  t.deepEqual(Object.keys(refused!.headers).sort(), ['ratelimit', 'ratelimit-policy', 'retry-after']);
});

test('tokens a process took and did not use go back once the owner is quiet there', async (t) => {
  const policy = { perSecond: 0.001, burst: 20 };
  const bucket = memoryBucket(policy, Date.now);
  const [a, b] = [0, 1].map(() => new OwnerRateLimit(policy, 100, Date.now, { bucket }));
  t.teardown(() => [a, b].forEach((p) => p!.close()));
  t.is(a!.take('key:a'), null);
  await settle();
  t.is(a!.take('key:a'), null); // a holds a chunk now
  await new Promise((resolve) => setTimeout(resolve, 800));
  let admitted = 2;
  for (let i = 0; i < 40; i++) {
    if (b!.take('key:a') === null) admitted++;
    await settle();
  }
  t.is(admitted, 20, 'the other process got every token but the two a used');
});

test('while the shared bucket cannot be reached each process limits on its own, and says so once', async (t) => {
  const now = 1_000_000;
  const policy = { perSecond: 10, burst: 5 };
  const bucket = memoryBucket(policy, () => now);
  const failures: unknown[] = [];
  const limit = new OwnerRateLimit(policy, 100, () => now, { bucket, onFailure: (err) => failures.push(err) });
  t.teardown(() => limit.close());
  bucket.down(true);
  t.is(limit.take('key:a'), null, 'admitted on credit');
  await settle();
  let admitted = 1;
  for (let i = 0; i < 20; i++) if (limit.take('key:a') === null) admitted++;
  t.is(admitted, 1 + 5, 'then the process\'s own bucket, full');
  t.is(failures.length, 1);
});

test("a client's first requests at once are admitted before the process has any answer about its owner", async (t) => {
  const now = 1_000_000;
  const policy = { perSecond: 20, burst: 40 };
  const limit = new OwnerRateLimit(policy, 100, () => now, { bucket: memoryBucket(policy, () => now) });
  t.teardown(() => limit.close());
  const firstAtOnce = Array.from({ length: 10 }, () => limit.take('key:cold'));
  t.deepEqual(firstAtOnce, Array(10).fill(null), 'a quarter of the burst on credit');
  t.truthy(limit.take('key:cold')?.headers['retry-after'], 'then a refusal until the bucket answers');
  await settle();
  t.is(limit.take('key:cold'), null, 'and the answer brings more');
});
