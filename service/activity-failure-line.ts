// The Temporal SDK logs every failed activity with its error's whole stack ("Activity failed",
// some thirty lines). A typed failure (contract/failures.ts: a token the server refused, a server
// that wants one, an answer that came too late) is an outcome, not a defect: the API's answer and
// the connector's audit trail say it already, so the log says it in one warning line naming the
// connector and the reason. Any other error is a defect and keeps its stack.
import { isFailureType } from '../contract/failures';

export interface LogLine {
  fields: Record<string, unknown>;
  message: string;
}

const CONNECTOR_WORKFLOW = /^connector:(.+)$/;

/** The one line for an SDK "Activity failed" entry whose error is a typed failure; null for any other entry. */
export function activityFailureLine(message: string, meta: Record<string, unknown>): LogLine | null {
  if (message !== 'Activity failed') return null;
  const error = meta.error as { type?: unknown; message?: unknown } | undefined;
  if (!error || !isFailureType(error.type) || typeof error.message !== 'string') return null;
  const connector = CONNECTOR_WORKFLOW.exec(String(meta.workflowId ?? ''))?.[1];
  const fields = { connector, activity: meta.activityType, attempt: meta.attempt, failure: error.type };
  return { fields, message: `${connector ? `connector ${connector}` : String(meta.workflowId ?? 'a workflow')}: ${meta.activityType} failed: ${error.message}` };
}
