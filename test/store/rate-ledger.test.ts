// The shared per-owner rate on the embedded database (FerretDB, whose updates are not atomic):
// ledgers on four connections granting at once never grant a token twice, a charge and a give-back
// move the bucket as they say, and two "processes" (rate limits on connections of their own)
// flooding one owner admit what the policy allows once, not once each.
import test from 'ava';
import { databasePerFile } from '../helpers/database-per-file';
import { OwnerRateLimit } from '../../callers/owner-rate-limit';
import { RateLedger, type RatePolicy } from '../../store/rate-ledger';

const database = databasePerFile('rate-ledger');

function ledgerIn(scope: string, policy: RatePolicy, now?: () => number): RateLedger {
  return new RateLedger(database.connect().db('rates'), scope, policy, now);
}

test('four ledgers granting at once, the clock stopped, grant the burst exactly once between them', async (t) => {
  const now = () => 5_000_000;
  const policy = { perSecond: 1, burst: 60 };
  const ledgers = Array.from({ length: 4 }, () => ledgerIn('contended', policy, now));
  const grants = await Promise.all(ledgers.map(async (ledger) => {
    let got = 0;
    for (let i = 0; i < 10; i++) got += (await ledger.take('key:a', 3, 0)).granted;
    return got;
  }));
  t.is(grants.reduce((a, b) => a + b), 60, `granted ${grants.join(' + ')}`);
  const empty = await ledgers[0]!.take('key:a', 3, 0);
  t.is(empty.granted, 0);
  t.is(empty.nextAt, 5_000_000 + 1000, 'one more token in a second');
  t.is((await ledgers[1]!.take('key:b', 3, 0)).granted, 3, 'another owner has a bucket of its own');
});

test('a charge spends whatever the bucket holds; a give-back fills it, never past full', async (t) => {
  let now = 7_000_000;
  const ledger = ledgerIn('charges', { perSecond: 10, burst: 10 }, () => now);
  t.is((await ledger.take('key:a', 10, 0)).granted, 10);
  const owing = await ledger.take('key:a', 0, 5); // five admitted on credit with the bucket empty
  t.is(owing.nextAt, now + 600, 'paid for by the next half second');
  t.is((await ledgerIn('charges', { perSecond: 10, burst: 10 }, () => now).take('key:a', 1, 0)).granted, 0, 'another process sees it too');
  t.is((await ledger.take('key:a', 0, -5)).granted, 0);
  t.is((await ledger.take('key:a', 1, 0)).nextAt, now + 100, 'given back: empty, no debt');
  now += 60_000;
  await ledger.take('key:a', 0, -50);
  t.is((await ledger.take('key:a', 100, 0)).granted, 10, 'full, never past the burst');
});

test('two processes flooding one owner together admit the policy (burst plus rate) once, not once each', async (t) => {
  const policy = { perSecond: 50, burst: 100 };
  const processes = [0, 1].map(() => new OwnerRateLimit(policy, 100, Date.now, { bucket: ledgerIn('flood', policy) }));
  t.teardown(() => processes.forEach((p) => p.close()));
  const started = Date.now();
  let admitted = 0;
  let sent = 0;
  while (Date.now() - started < 1900) {
    if (processes[sent++ % 2]!.take('key:flood') === null) admitted++;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const allowed = policy.burst + policy.perSecond * (Date.now() - started) / 1000;
  t.log(`admitted ${admitted} of ${sent} in ${Date.now() - started} ms; the policy allows ${allowed.toFixed(0)} (${(admitted / allowed).toFixed(2)}×)`);
  t.true(admitted <= allowed * 1.1, 'never more than the policy and a tenth');
  t.true(admitted > allowed / 2 + 10, 'and more than one process\'s half');
});
