// MongoDB: the tasks the service owns (workflows/tool-task.ts), as their connectors' owners list
// them. Written by the task workflow's activity after each change of status (so never ahead of
// Temporal), each write carrying the workflow's sequence number: a retried older write never
// overwrites a newer one. A task's document goes when the task does (its TTL).
//
// The embedded database pushes down only `_id` lookups, so a listing scans the collection: it
// holds only live tasks and those within their TTL.
import type { Collection, Db } from 'mongodb';
import type { TaskSummary } from '../contract/task-record';
import { decodePageToken, encodePageToken } from './page-token';
import { onlyDuplicateKeys } from './duplicate-key';

/** Whose tasks: a connector's, or those started through a toolset. */
export type TaskFilter = { connector_id: string } | { toolset_id: string };

interface TaskDoc extends TaskSummary {
  _id: string;
  connector_id: string;
  seq: number;
}

export interface TaskPage {
  items: TaskSummary[];
  has_more: boolean;
  next_page_token: string | null;
}

export class TaskStore {
  private readonly tasks: Collection<TaskDoc>;

  constructor(db: Db) {
    this.tasks = db.collection<TaskDoc>('tool_tasks');
  }

  /** The task as of `seq`; an older write (a retry) changes nothing. */
  async record(connectorId: string, seq: number, task: TaskSummary): Promise<void> {
    const _id = `${connectorId}:${task.task_id}`;
    const doc = { ...task, connector_id: connectorId, seq };
    const replaced = await this.tasks.replaceOne({ _id, seq: { $lt: seq } }, doc);
    if (replaced.matchedCount > 0) return;
    try {
      await this.tasks.insertOne({ _id, ...doc });
    } catch (err) {
      if (!onlyDuplicateKeys(err)) throw err; // else there already, as new or newer
    }
  }

  async forget(connectorId: string, taskId: string): Promise<void> {
    await this.tasks.deleteOne({ _id: `${connectorId}:${taskId}` });
  }

  /** Tasks by status, and how long the oldest in input_required has waited (its last change). */
  async census(now = Date.now()): Promise<{ counts: Record<string, number>; oldestWaitingSeconds: number }> {
    const counts: Record<string, number> = {};
    let oldest = now;
    for (const doc of await this.tasks.find({}, { projection: { status: 1, updated_at: 1 } }).toArray()) {
      counts[doc.status] = (counts[doc.status] ?? 0) + 1;
      if (doc.status === 'input_required') oldest = Math.min(oldest, Date.parse(doc.updated_at));
    }
    return { counts, oldestWaitingSeconds: Math.max(0, (now - oldest) / 1000) };
  }

  /** Newest first. */
  async list(filter: TaskFilter, options: { limit: number; pageToken?: string }): Promise<TaskPage> {
    const after = options.pageToken ? decodePageToken(options.pageToken) : null;
    const docs = await this.tasks.find(filter).toArray();
    const sorted = docs.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.task_id.localeCompare(a.task_id));
    const start = after ? sorted.findIndex((d) => d.created_at < after.k || (d.created_at === after.k && d.task_id < after.id)) : 0;
    const rest = start < 0 ? [] : sorted.slice(start);
    // Written before toolsets started tasks: no toolset.
    const items = rest.slice(0, options.limit).map(({ _id, connector_id, seq, ...task }) => ({ ...task, toolset_id: task.toolset_id ?? null }));
    const last = items.at(-1);
    const hasMore = rest.length > options.limit;
    return { items, has_more: hasMore, next_page_token: hasMore && last ? encodePageToken({ k: last.created_at, id: last.task_id }) : null };
  }
}
