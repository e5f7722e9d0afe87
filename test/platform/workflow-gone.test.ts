// What a NOT_FOUND from Temporal means: a deleted connector, or an Update the service lost.
// test/workflows/connector-workflow.test.ts has the real service's answers; these are the other
// shapes the SDK gives the same answers (its own error, or the gRPC error underneath).
import test from 'ava';
import { WorkflowNotFoundError } from '@temporalio/common';
import { isUpdateLost, isWorkflowGone } from '../../platform/workflow-gone';

const grpcNotFound = (message: string) => Object.assign(new Error(message), { code: 5 });

const LOST = [
  new WorkflowNotFoundError('update "authorization-callback/abc" not found', 'connector-1', undefined),
  new WorkflowNotFoundError('update abc wasn\'t found on server. It is, most likely, a transient error which is fixed by retries', 'connector-1', undefined),
  grpcNotFound('update "u-1" not found'),
];
const GONE = [
  new WorkflowNotFoundError('workflow not found for ID: connector-1', 'connector-1', undefined),
  grpcNotFound('sql: no rows in result set'),
  new Error('workflow execution already completed'),
];

test('an Update the service lost is not a deleted connector', (t) => {
  for (const err of LOST) {
    t.true(isUpdateLost(err), err.message);
    t.false(isWorkflowGone(err), err.message);
  }
});

test('a workflow that is gone is not a lost Update', (t) => {
  for (const err of GONE) {
    t.true(isWorkflowGone(err), err.message);
    t.false(isUpdateLost(err), err.message);
  }
});

test('an error that is not NOT_FOUND is neither, whatever its message says about an Update', (t) => {
  const err = new Error('update "u-1" not found');
  t.false(isUpdateLost(err));
  t.false(isWorkflowGone(err));
});
