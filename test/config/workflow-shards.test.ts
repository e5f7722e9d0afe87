import test from 'ava';
import { randomUUID } from 'node:crypto';
import { MAX_WORKFLOW_SHARDS, connectorQueue, shardQueue, shardQueues } from '../../config/workflow-shards';

test('shard 0 is the base queue itself, so workflows started before sharding stay served', (t) => {
  t.is(shardQueue('connectors', 0), 'connectors');
  t.deepEqual(shardQueues('connectors', 3), ['connectors', 'connectors-shard-1', 'connectors-shard-2']);
  t.deepEqual(shardQueues('q', 1), ['q']);
});

test('with one shard every connector starts on the base queue', (t) => {
  for (let i = 0; i < 50; i++) t.is(connectorQueue('connectors', 1, randomUUID()), 'connectors');
});

test("a connector's queue depends on its id alone, and is one of the shards' queues", (t) => {
  const id = randomUUID();
  t.is(connectorQueue('connectors', 4, id), connectorQueue('connectors', 4, id));
  // Pinned: the hash names where running workflows live, so it may never change between releases.
  // FNV-1a of 'a' is 0xe40c292c (its published test vector): 12 of 16.
  t.deepEqual(
    ['a', 'b', 'c', 'connector-1', 'connector-2'].map((x) => connectorQueue('connectors', 16, x)),
    ['connectors-shard-12', 'connectors-shard-5', 'connectors-shard-2', 'connectors-shard-2', 'connectors-shard-15'],
  );
  for (let i = 0; i < 200; i++) t.true(shardQueues('connectors', 5).includes(connectorQueue('connectors', 5, randomUUID())));
});

test('random ids spread evenly over the shards (each within a fifth of its share)', (t) => {
  for (const shards of [2, 4, MAX_WORKFLOW_SHARDS]) {
    const counts = new Map<string, number>();
    const ids = 4_000 * shards;
    for (let i = 0; i < ids; i++) {
      const queue = connectorQueue('connectors', shards, randomUUID());
      counts.set(queue, (counts.get(queue) ?? 0) + 1);
    }
    t.is(counts.size, shards);
    for (const [queue, n] of counts) t.true(Math.abs(n - 4_000) < 800, `${queue}: ${n} of ${ids}`);
  }
});
