// The one test for "this connector's workflow no longer exists" (a deleted connector), shared by
// the API (404) and the proxy (not_found). Temporal says so in several ways: the SDK's
// WorkflowNotFoundError, gRPC NOT_FOUND (5) from the service, and, for an Update or a query sent to
// a workflow that has just completed, an error whose message says it completed.
import { WorkflowNotFoundError } from '@temporalio/common';

const GRPC_NOT_FOUND = 5;

export function isWorkflowGone(err: unknown): boolean {
  if (err instanceof WorkflowNotFoundError) return true;
  const e = err as { code?: unknown; cause?: { code?: unknown }; message?: unknown };
  if (e?.code === GRPC_NOT_FOUND || e?.cause?.code === GRPC_NOT_FOUND) return true;
  return typeof e?.message === 'string' && /workflow (execution )?(already completed|not found)/i.test(e.message);
}
