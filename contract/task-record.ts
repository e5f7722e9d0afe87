// A task the service owns, as its connector's owner sees it in the API (GET
// /api/v1/connectors/{id}/tasks, and /api/v1/toolsets/{id}/tasks for those started through a toolset): who asked, which tool, where it stands — never its arguments,
// answers or result, which are its caller's alone and are read through MCP's tasks/get.
import { z } from 'zod';
import { APPROVAL_STATES } from './approvals';
import { MAX_TASK_HISTORY } from './task-limits';

export const TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;


export const TaskSummarySchema = z
  .object({
    task_id: z.string(),
    tool: z.string(),
    caller: z.string().nullable().meta({ description: 'Who started it (the caller subject); null with caller authentication off' }),
    status: z.enum(TASK_STATUSES),
    created_at: z.string(),
    updated_at: z.string(),
    toolset_id: z.string().nullable().meta({ description: "The toolset whose MCP path it was started on; null: the connector's own" }),
    approval: z.object({
      state: z.enum(APPROVAL_STATES),
      decided_by: z.string().nullable(),
      decided_at: z.string().nullable(),
    }).optional().meta({ description: 'Present when a rule held the call for approval (CONNECTOR__APPROVAL_TOOLS): where it stands and who decided' }),
    history: z.array(z.object({
      status: z.enum(TASK_STATUSES),
      at: z.string(),
      by: z.string().optional().meta({ description: 'Who made the change, where someone did: the approver who decided, the caller who cancelled' }),
      approval: z.enum(APPROVAL_STATES).optional().meta({ description: 'Set where the change was an approval: pending (held at creation), approved, denied or expired' }),
    })).optional().meta({ description: `Its statuses in order, from its creation (at most ${MAX_TASK_HISTORY}: the first, then the latest)` }),
    unknown_outcome: z.boolean().meta({ description: 'failed because its worker died mid-call and the tool is not idempotent: whether the server acted is unknown' }),
  })
  .meta({ id: 'ConnectorTask' });
export type TaskSummary = z.infer<typeof TaskSummarySchema>;
export type TaskChange = NonNullable<TaskSummary['history']>[number];

/** A change with its number (1 is the task's creation), as the per-call audit writes it. */
export interface NumberedChange {
  n: number;
  change: TaskChange;
  /** How many changes just before this one were never written (the backlog overflowed). */
  skipped?: number;
}


export const TaskListSchema = z
  .object({
    items: z.array(TaskSummarySchema),
    has_more: z.boolean(),
    next_page_token: z.string().nullable(),
  })
  .meta({ id: 'ConnectorTaskList' });
