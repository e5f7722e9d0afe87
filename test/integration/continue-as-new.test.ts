// A connector lives for years: its workflow continues as new when its history grows, and
// nothing (state, sealed token, audit sequence, the ability to take Updates) is lost across it.
import test from 'ava';
import { connectorWorkflowId, routeQuery } from '../../workflows/messages';
import { OWNER_MEMO } from '../../api/connector-commands';
import { historyOfAllRuns, patchWrites } from '../helpers/history-values';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';

let stack: TestStack;
let upstream: TokenMcpServer;

test.before(async () => {
  upstream = await startTokenMcpServer({ token: 'can-token-1' });
  stack = await startTestStack({ CONNECTOR__HISTORY_LIMIT: '40' }); // forces continue-as-new every few transitions
});

test.after.always(async () => {
  await stack?.stop();
  await upstream?.close();
});

test('history is bounded by continue-as-new and nothing is lost', async (t) => {
  const { body: c } = await stack.api('POST', '/api/v1/connectors', { url: upstream.url, metadata: { name: 'long-lived' } });
  const handle = stack.temporal.workflow.getHandle(connectorWorkflowId(c.id));
  const firstRun = (await handle.describe()).runId;
  const cycles = 6;
  for (let i = 0; i < cycles; i++) {
    const on = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: 'can-token-1' });
    t.is(on.status, 200, JSON.stringify(on.body));
    const off = await stack.api('POST', `/api/v1/connectors/${c.id}/disconnect`);
    t.is(off.status, 200, JSON.stringify(off.body));
  }
  t.is((await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: 'can-token-1' })).status, 200);

  const described = await handle.describe();
  t.not(described.runId, firstRun, 'the workflow continued as new');
  // The owner is read from the memo where no worker answers (callers/workflow-owners.ts): it crosses over too.
  const firstMemo = (await stack.temporal.workflow.getHandle(connectorWorkflowId(c.id), firstRun).describe()).memo;
  t.truthy(firstMemo?.[OWNER_MEMO]);
  t.deepEqual(described.memo?.[OWNER_MEMO], firstMemo?.[OWNER_MEMO]);
  t.true((described.historyLength ?? 0) < 80, `history of the current run stays bounded (${described.historyLength})`);

  // The state and the sealed token crossed over: the proxy's query still finds them.
  const route = await handle.query(routeQuery);
  t.is(route.state, 'connected');
  t.is(route.target, upstream.url);
  t.truthy(route.token);
  t.false(route.token!.includes('can-token-1'));

  const record = (await stack.api('GET', `/api/v1/connectors/${c.id}`)).body;
  t.like(record, { state: 'connected', metadata: { name: 'long-lived' } });
  const events = (await stack.api('GET', `/api/v1/connectors/${c.id}/events?limit=100`)).body;
  const expected = 1 + cycles * 4 + 2;
  t.is(events.total_count, expected);
  t.deepEqual(events.items.map((e: { seq: number }) => e.seq), Array.from({ length: expected }, (_, i) => i + 1));

  // Every run's history, read back from the latest: each connect is there once, in one run or another.
  const all = (await historyOfAllRuns(stack.temporal, connectorWorkflowId(c.id))).events ?? [];
  const runs = all.filter((e) => e.workflowExecutionStartedEventAttributes).length;
  t.true(runs > 1, `the history read back spans ${runs} runs`);
  const connects = all.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'connect');
  t.is(connects.length, cycles + 1);
  // The API starts a connector with every patched change built in (workflows/code-changes.ts): no run asks patched().
  t.deepEqual(patchWrites(all), { markers: [], upserts: 0 }, 'no patch marker or TemporalChangeVersion upsert in any run');

  // And the connector still takes Updates and can be deleted.
  t.is((await stack.api('DELETE', `/api/v1/connectors/${c.id}`)).status, 202);
});
