// The changes to the connector workflow's commands made behind patched(), and whether a run takes
// each. Histories from before a change replay as they were written. patched() writes a marker and
// a search-attribute upsert (TemporalChangeVersion) into every run that asks, so a run started by
// code that has them all built in says so in its input (`ConnectorInit.changesBuiltIn`: set at
// creation and at every continue-as-new) and takes them without asking.
import { patched } from '@temporalio/workflow';
import type { ConnectorInit } from './messages';

/**
 * A renewal waits at least the connector's minimum interval, and one that the floor put past the
 * token's expiry does not count the expired token as a lost connection (the MCP server's refusal
 * of it asks for a renewal through the proxy meanwhile).
 */
export const REFRESH_FLOOR = 'refresh-floor';

/** Renewals run in the timer's workflow task (before: a regular activity, and an expiry timer left to fire). */
export const IN_TASK_REFRESH = 'refresh-in-workflow-task';

/** Calls in a workflow task get one try there and leave it for a regular activity (`inTaskFirst`; before: retrying local activities). */
export const IN_TASK_TRY_ONCE = 'in-task-try-once';

/**
 * A renewal races its token's expiry only once it has left its workflow task, so one that ends in
 * its task (nearly all) makes no timer. Before, the race started beside the renewal (its timer
 * cancelled unsent when the renewal ended in its task); those commands differ from these only
 * where the task was heartbeated while its call ran, which sends the timer early.
 */
export const EXPIRY_RACE_ON_LEAVING = 'expiry-race-on-leaving';

/** Every change above: what this code starts a run with. A change added later joins it with its patch (runs under way do not list it: they ask). */
export const CHANGES_BUILT_IN: readonly CodeChange[] = [REFRESH_FLOOR, IN_TASK_REFRESH, IN_TASK_TRY_ONCE, EXPIRY_RACE_ON_LEAVING];

export type CodeChange = typeof REFRESH_FLOOR | typeof IN_TASK_REFRESH | typeof IN_TASK_TRY_ONCE | typeof EXPIRY_RACE_ON_LEAVING;

/** Whether this run takes `change`: built in where its input says so; otherwise as patched() answers (absent: a run from before the list). */
export function takes(init: ConnectorInit, change: CodeChange): boolean {
  return init.changesBuiltIn?.includes(change) === true || patched(change);
}

/** The input of a run this code starts: every change built in. */
export function withChangesBuiltIn(init: ConnectorInit): ConnectorInit {
  return { ...init, changesBuiltIn: [...CHANGES_BUILT_IN] };
}
