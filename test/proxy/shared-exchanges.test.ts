// The per-owner cap on open exchanges across processes, against leases kept in memory (A FAKE of
// store/owner-leases.ts, which is tested on FerretDB in test/store/owner-leases.test.ts): two
// processes together hold the owner to its limit, give or take their credit; an exchange that
// closes frees its place for either; a process quiet for a moment gives its spare slots back;
// and while the leases cannot be reached each process counts on its own.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import test from 'ava';
import { OpenExchanges } from '../../proxy/open-exchanges';
import { SharedExchanges, type StreamLeases } from '../../proxy/shared-exchanges';
import { abandonedResponse } from '../helpers/abandoned-response';

function memoryLeases() {
  const slots = new Map<string, string>(); // slot → holder
  let down = false;
  const leases: StreamLeases & { slots: Map<string, string>; down(on: boolean): void } = {
    slots,
    down: (on) => (down = on),
    async claim(owner, holder, count, limit) {
      if (down) throw new Error('database down');
      const taken: string[] = [];
      for (let n = 0; n < limit && taken.length < count; n++) {
        const id = `${owner}|${n}`;
        if (!slots.has(id)) {
          slots.set(id, holder);
          taken.push(id);
        }
      }
      return taken;
    },
    async renew() {},
    async release(holder, ids) {
      for (const id of ids) if (slots.get(id) === holder) slots.delete(id);
    },
  };
  return leases;
}

const response = () => new EventEmitter() as unknown as ServerResponse;
const settle = () => new Promise((resolve) => setImmediate(resolve));

test('two processes hold one owner to its limit between them, give or take a credit each; a closed exchange frees a place', async (t) => {
  const leases = memoryLeases();
  const processes = ['p1', 'p2'].map((holder) => new SharedExchanges(leases, holder, 64));
  t.teardown(() => Promise.all(processes.map((p) => p.close())));
  const open: ServerResponse[] = [];
  let refused = 0;
  for (let i = 0; i < 100; i++) {
    const res = response();
    if (processes[i % 2]!.take('key:a', res)) open.push(res);
    else refused++;
    await settle();
  }
  t.true(open.length >= 64 && open.length <= 64 + 2 * 2, `${open.length} open of 100 with a limit of 64`);
  t.is(open.length + refused, 100);
  t.false(processes[0]!.take('key:a', response()), 'full');
  for (const res of open.splice(0, 10)) res.emit('close');
  let again = 0;
  for (let i = 0; i < 10; i++) {
    if (processes[i % 2]!.take('key:a', response())) again++;
    await settle();
  }
  t.true(again >= 6, `${again} of the 10 places freed taken again`);
  t.true(processes[1]!.take('key:b', response()), 'another owner has its own');
});

test('a process quiet for a moment gives back every slot it does not use', async (t) => {
  const leases = memoryLeases();
  const p1 = new SharedExchanges(leases, 'p1', 64);
  t.teardown(() => p1.close());
  const res = response();
  t.true(p1.take('key:a', res));
  await settle();
  t.true(leases.slots.size > 1, 'a chunk leased ahead');
  res.emit('close');
  await new Promise((resolve) => setTimeout(resolve, 3_500));
  t.is(leases.slots.size, 0);
});

test('while the leases cannot be reached each process holds the owner to the limit on its own', async (t) => {
  const leases = memoryLeases();
  const failures: unknown[] = [];
  const p1 = new SharedExchanges(leases, 'p1', 5, (err) => failures.push(err));
  t.teardown(() => p1.close());
  leases.down(true);
  t.true(p1.take('key:a', response()), 'on credit');
  await settle();
  let open = 1;
  for (let i = 0; i < 10; i++) if (p1.take('key:a', response())) open++;
  t.is(open, 5);
  t.is(failures.length, 1);
});

test("a client's first exchanges at once are admitted before the process has leased anything for its owner", (t) => {
  const p1 = new SharedExchanges(memoryLeases(), 'p1', 64);
  t.teardown(() => p1.close());
  const admitted = Array.from({ length: 8 }, () => p1.take('key:cold', response()));
  t.deepEqual(admitted, Array(8).fill(true), 'an eighth of the limit on credit');
  t.false(p1.take('key:cold', response()), 'then no more until the lease answers');
});

test('a response whose client left before it was counted holds no place, in one process or shared', async (t) => {
  const leases = memoryLeases();
  const shared = new SharedExchanges(leases, 'p1', 1);
  t.teardown(() => shared.close());
  for (const counter of [new OpenExchanges(1), shared]) {
    for (let i = 0; i < 3; i++) t.true(counter.take('key:a', await abandonedResponse()), 'admitted: it will write nothing');
    t.is(counter.count('key:a'), 0);
    const live = response();
    t.true(counter.take('key:a', live), 'the one place is still free');
    await settle();
    t.false(counter.take('key:a', response()), 'and the limit holds');
    live.emit('close');
  }
});
