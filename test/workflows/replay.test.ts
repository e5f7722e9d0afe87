// Replays recorded histories (test/workflows/histories, made by record-histories.ts) against the
// current workflow code: a change that would alter the commands of a running workflow fails here,
// in CI, instead of failing those workflows with a non-determinism error.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { bundleWorkflows } from '../../service/bundle-workflows';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'histories');
const { History } = proto.temporal.api.history.v1;
const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.binpb')).sort();

test('the recorded histories cover a token connect, an OAuth connect with refresh, calls that leave their task (and race the expiry once out), a stdio connect, deletes, and continue-as-new at the history limit and after a connect', (t) => {
  t.deepEqual(files, [
    'changes-built-in.binpb', 'continue-after-connect.binpb', 'continue-as-new.binpb', 'delete-while-connecting.binpb', 'expiry-race-on-leaving.binpb', 'in-task-try-once.binpb', 'oauth-connect-refresh.binpb',
    'oauth-refresh-in-task.binpb', 'refresh-floor.binpb', 'stdio-connect.binpb', 'token-connect.binpb',
  ]);
});

test('every recorded history replays against the current workflow code', async (t) => {
  const histories = files.map((file) => ({
    workflowId: file.replace(/\.binpb$/, ''),
    history: History.decode(fs.readFileSync(path.join(DIR, file))),
  }));
  const failures: string[] = [];
  let replayed = 0;
  const code = await bundleWorkflows(false);
  for await (const result of Worker.runReplayHistories({
    workflowBundle: { code },
    replayName: 'connector-workflow-replay',
  }, histories)) {
    replayed += 1;
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  t.is(replayed, files.length);
  t.deepEqual(failures, []);
});

// Traces can be turned on and off while connectors run: histories recorded without the
// OpenTelemetry workflow interceptors replay on the traced bundle too (its extra yields are gated
// by SDK flags that these histories predate).
test('every recorded history replays against the traced workflow bundle', async (t) => {
  const histories = files.map((file) => ({
    workflowId: file.replace(/\.binpb$/, ''),
    history: History.decode(fs.readFileSync(path.join(DIR, file))),
  }));
  const code = await bundleWorkflows(true);
  t.true(code.includes('OpenTelemetryInboundInterceptor'), 'the bundle holds the interceptors');
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({
    workflowBundle: { code },
    replayName: 'connector-workflow-replay-traced',
    sinks: { exporter: { export: { fn: () => undefined } } },
  }, histories)) {
    replayed += 1;
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  t.is(replayed, files.length);
  t.deepEqual(failures, []);
});
