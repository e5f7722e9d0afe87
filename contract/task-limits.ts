// How much a task keeps, in its workflow and in its listing. Apart from the task record's
// schemas (task-record.ts) because the tool task workflow reads these, and a workflow evaluates
// everything it imports once per cached workflow.
/** The most status changes a task's listing keeps: its first, and the latest after it. */
export const MAX_TASK_HISTORY = 32;

/**
 * The most changes a task keeps for the audit while they cannot be written (the store down):
 * far more than a task makes in practice; past it the oldest unwritten go, and the next row says how many.
 */
export const MAX_AUDIT_BACKLOG = 1_000;
