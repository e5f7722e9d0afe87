// bench:replay's prefixes of a connector history: each ends on a completed workflow task, counts
// what it holds, and replays against the workflow code as the worker would replay a connector of
// that age (a prefix that failed to replay would make the bench measure an error path).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { cutHistory } from '../../bench/replay/history-cuts';

const { EventType } = proto.temporal.api.enums.v1;
const recorded = proto.temporal.api.history.v1.History.decode(
  fs.readFileSync(fileURLToPath(new URL('../workflows/histories/oauth-refresh-in-task.binpb', import.meta.url))),
);
const total = recorded.events!.length;
const lastCompleted = recorded.events!.map((e) => e.eventType).lastIndexOf(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) + 1;

test('each prefix ends on the first completed workflow task at or past its length; lengths past the history give none', (t) => {
  const cuts = cutHistory(recorded, [total + 100, 1, Math.floor(total / 2), 1]);
  t.is(cuts.length, 2, 'the two lengths the history reaches, once each');
  t.true(cuts[0]!.events < cuts[1]!.events, 'shortest first');
  for (const cut of cuts) {
    const events = cut.history.events!;
    t.is(events.length, cut.events);
    t.is(events.at(-1)!.eventType, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
    t.deepEqual(events, recorded.events!.slice(0, cut.events), 'a prefix of the history, unchanged');
  }
  const firstCompleted = recorded.events!.findIndex((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) + 1;
  t.is(cuts[0]!.events, firstCompleted, 'length 1: the run\'s first task');
  t.is(cuts[0]!.tasks, 1);
});

test('a prefix counts its workflow tasks and its local activities (the renewals run in a task)', (t) => {
  const [whole] = cutHistory(recorded, [lastCompleted]);
  const count = (type: number) => recorded.events!.slice(0, whole!.events).filter((e) => e.eventType === type).length;
  t.is(whole!.tasks, count(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED));
  t.is(whole!.renewals, count(EventType.EVENT_TYPE_MARKER_RECORDED));
  t.true(whole!.renewals > 0, 'the recorded history renews in its task');
});

test('every prefix replays against the workflow code without error', async (t) => {
  const cuts = cutHistory(recorded, [1, 10, 20, 30, lastCompleted]);
  t.true(cuts.length >= 3);
  const errors: string[] = [];
  for await (const result of Worker.runReplayHistories(
    { workflowsPath: fileURLToPath(new URL('../../workflows/index.ts', import.meta.url)), replayName: 'history-cuts' },
    cuts.map((cut) => ({ workflowId: 'history-cuts', history: cut.history })),
  )) {
    if (result.error) errors.push(result.error.message);
  }
  t.deepEqual(errors, []);
});
