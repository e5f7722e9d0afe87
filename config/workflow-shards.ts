// Connector workflows spread over several task queues (CONNECTOR__WORKFLOW_SHARDS), each served by
// a Temporal worker of its own in every worker process. Why: after every input to a worker's
// workflow stream, the SDK's core counts the runs being evicted by walking that worker's whole
// workflow cache, so with every connector cached a refresh pays several walks of all of them
// (docs/scale.md, "A connector's age"). A worker per shard walks only its share. The SDK refuses
// two workers on one task queue in a process, hence one queue per shard.
//
// Shard 0 is the base queue itself: connectors started before sharding, the tool-task workflows
// and the registry sync stay where they are. A workflow keeps its queue for life (continue-as-new
// included), so the count may be raised at any time but not lowered while a workflow runs on a
// queue it would drop (the worker refuses to start then: worker-shards.ts).

export const MAX_WORKFLOW_SHARDS = 16;

/** The task queue of shard `index` (0: the base queue). */
export function shardQueue(base: string, index: number): string {
  return index === 0 ? base : `${base}-shard-${index}`;
}

/** Every queue a worker serves with `shards` shards, shard 0 first. */
export function shardQueues(base: string, shards: number): string[] {
  return Array.from({ length: shards }, (_, index) => shardQueue(base, index));
}

/** The queue a new connector's workflow starts on: its shard by a hash of its id, fixed for its life. */
export function connectorQueue(base: string, shards: number, connectorId: string): string {
  return shards <= 1 ? base : shardQueue(base, fnv1a(connectorId) % shards);
}

/** FNV-1a, 32 bits: spreads ids evenly, the same in every process and release (it names where workflows live). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
