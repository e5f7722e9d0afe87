// A worker serves the shards CONNECTOR__WORKFLOW_SHARDS names, and a workflow keeps the queue it
// started on for life. With the count lowered, the workflows on the queues it drops would wait
// for ever with nobody polling them: the worker refuses to start instead, and says how to mend it.
import type { Client } from '@temporalio/client';
import { ConfigError } from '../config/config';
import type { Logger } from '../platform/logger';
import { MAX_WORKFLOW_SHARDS, shardQueue } from '../config/workflow-shards';

/**
 * Throws ConfigError when running workflows sit on a shard's queue beyond `shards`. A Temporal
 * whose visibility cannot count by task queue (Cassandra's standard visibility) is not asked
 * again: the worker starts, with a warning that nothing was checked.
 */
export async function assertNoStrandedShards(client: Client, base: string, shards: number, logger: Logger): Promise<void> {
  const dropped = Array.from({ length: MAX_WORKFLOW_SHARDS - shards }, (_, i) => shardQueue(base, shards + i));
  if (dropped.length === 0) return;
  const quoted = dropped.map((queue) => `'${queue.replace(/'/g, "\\'")}'`).join(', ');
  let count: number;
  try {
    ({ count } = await client.workflow.count(`ExecutionStatus = 'Running' AND TaskQueue IN (${quoted})`));
  } catch (err) {
    logger.warn({ err }, 'could not count the workflows on the queues of higher shards than CONNECTOR__WORKFLOW_SHARDS; starting without that check');
    return;
  }
  if (count === 0) return;
  throw new ConfigError(
    `CONNECTOR__WORKFLOW_SHARDS is ${shards}, but ${count} running workflows are on the queues of higher shards ` +
    `(${dropped[0]} and after), which no worker would serve: set it back to the count they were started with`,
  );
}
