// Every typed failure the side effects throw, walked the way it travels: the activity boundary
// (ApplicationFailure of its type), the workflow's connect failure, the API's problem mapper. The
// status the API answers must be the one contract/failures.ts's table gives for the class's type, and
// no class may carry a status of its own. The classes are found by importing every module of the
// rooms that throw them, so a new class is walked without anyone listing it here.
import test from 'ava';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { FAILURE_HTTP, TypedFailure, isFailureType } from '../../contract/failures';
import { ProblemError } from '../../contract/problem';
import type { ConnectorRecord } from '../../contract/connector-record';
import { toApplicationFailure } from '../../activities/typed-failure';
import { connectFailure } from '../../workflows/connect-job';
import { toProblemError } from '../../api/temporal-errors';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The rooms below the workflow (gateway/ is a program of its own: importing its main would run it).
const ROOMS = ['activities', 'contract', 'platform', 'catalog', 'config', 'callers', 'store'];

type FailureClass = new (message: string, extra: string) => TypedFailure;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every exported class of those rooms whose instances are TypedFailures, by module and name. */
async function failureClasses(): Promise<Map<string, FailureClass>> {
  const found = new Map<string, FailureClass>();
  for (const file of ROOMS.flatMap((room) => sourceFiles(join(ROOT, room)))) {
    const module = await import(pathToFileURL(file).href) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (typeof value === 'function' && value.prototype instanceof TypedFailure) found.set(`${file.slice(ROOT.length + 1)}:${name}`, value as FailureClass);
    }
  }
  return found;
}

/** What the API answers when a connect's activity threw `error`. */
function apiAnswer(error: TypedFailure): ProblemError {
  const atBoundary = toApplicationFailure(error) as ApplicationFailure;
  const inWorkflow = new ActivityFailure('activity failed', 'oauthBegin', '1', RetryState.NON_RETRYABLE_FAILURE, 'worker', atBoundary);
  const record = { state: 'disconnected', disconnect_reason: error.message } as ConnectorRecord;
  const answered = toProblemError(new WorkflowUpdateFailedError('update failed', connectFailure(inWorkflow, record)));
  if (!(answered instanceof ProblemError)) throw new Error(`${error.name} did not become a problem`);
  return answered;
}

test('every typed failure class reaches the API with the status the failure table gives its type', async (t) => {
  const classes = await failureClasses();
  // The three families that cross Temporal today: OAuth steps, workload runtimes, the MCP probe.
  for (const expected of ['activities/oauth/errors.ts:InvalidGrantError', 'activities/workloads/errors.ts:WorkloadTimeoutError', 'activities/mcp-probe.ts:McpServerError']) {
    t.true(classes.has(expected), `${expected} is found`);
  }
  let walked = 0;
  for (const [name, Class] of classes) {
    const error = new Class('the detail', 'invalid_request');
    if (error.failure === undefined) continue; // an abstract base (OAuthError)
    walked++;
    t.true(isFailureType(error.failure), `${name}: ${error.failure} is in the table`);
    t.false('status' in error, `${name} carries no HTTP status`);
    const answer = apiAnswer(error);
    t.is(answer.status, FAILURE_HTTP[error.failure].status, name);
    t.is(answer.slug, FAILURE_HTTP[error.failure].slug, name);
    t.is(answer.detail, 'the detail', `${name}: the message is what the caller reads`);
    t.is(answer.extensions.connector_state, 'disconnected', `${name}: the record travels with it`);
    const failure = toApplicationFailure(error) as ApplicationFailure;
    t.is(failure.nonRetryable, !error.retryable, `${name}: only a transient failure is retried`);
  }
  t.true(walked >= 25, `walked ${walked} classes`);
});

test('a failure of a type the table does not know is a 500, never a guess', (t) => {
  const answered = toProblemError(new WorkflowUpdateFailedError('update failed', ApplicationFailure.create({ type: 'Unheard', message: 'x' })));
  t.is((answered as ProblemError).status, 500);
});

test('an Update whose call was cut (its connection closed while the process stops) or ran out of time is a 503, never an unhandled 500', (t) => {
  const closed = Object.assign(new Error('1 CANCELLED: the Temporal connection was closed'), { code: 1, details: 'the Temporal connection was closed' });
  for (const cause of [closed, Object.assign(new Error('4 DEADLINE_EXCEEDED'), { code: 4 })]) {
    const answered = toProblemError(new WorkflowUpdateRPCTimeoutOrCancelledError(cause.message, { cause }));
    t.true(answered instanceof ProblemError, cause.message);
    t.is((answered as ProblemError).status, 503, cause.message);
    t.regex((answered as ProblemError).detail, /may still take effect/);
  }
});
