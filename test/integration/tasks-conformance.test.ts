// The conformance suite's ten `tasks-*` server scenarios (the Tasks extension, SEP-2663), run by the
// suite itself at 2026-07-28, against a server that implements the extension
// (test/fixtures/tasks-mcp-server.ts), directly and through a connector's MCP path: whatever passes
// directly passes through the proxy, which relays the task-augmented calls and every tasks/* method
// with the connector's token.
import test, { type ExecutionContext } from 'ava';
import type { SuiteResult } from '../conformance/suite-cli';
import { TASKS_SCENARIOS as SCENARIOS, tasksSuite } from '../conformance/tasks-suite';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { startTasksMcpServer, type TasksMcpServer } from '../fixtures/tasks-mcp-server';

const TOKEN = 'tasks-conformance-token';

let stack: TestStack;
let native: TasksMcpServer;

test.before(async () => {
  stack = await startTestStack();
  native = await startTasksMcpServer({ tasks: true });
});

test.after.always(async () => {
  await stack?.stop();
  await native?.close();
});

async function connectorFor(url: string): Promise<{ id: string; mcpUrl: string }> {
  const created = await stack.api('POST', '/api/v1/connectors', { url, match_preset: false });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const connected = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: TOKEN });
  if (connected.status !== 200) throw new Error(`connect: ${connected.status} ${connected.text}`);
  return { id: created.body.id, mcpUrl: created.body.mcp_url };
}

function report(t: ExecutionContext, label: string, result: SuiteResult): void {
  t.log(`${label}: ${result.passed.size}/${result.scenarios.size} passed`);
  for (const [scenario, failed] of result.scenarios) if (failed.length) t.log(`  ${scenario} fails ${[...new Set(failed)].join(', ')}`);
}

test.serial('a server with the Tasks extension: the ten tasks-* scenarios pass through the connector\'s MCP path as directly', async (t) => {
  const { mcpUrl } = await connectorFor(native.url);
  const direct = await tasksSuite(native.url);
  report(t, 'directly', direct);
  t.deepEqual([...direct.passed].sort(), [...SCENARIOS].sort(), 'the fixture passes every scenario directly');
  const before = native.calls.length;
  const proxied = await tasksSuite(mcpUrl);
  report(t, 'through the proxy', proxied);
  t.deepEqual([...proxied.passed].sort(), [...direct.passed].sort());
  const relayed = native.calls.slice(before);
  t.true(relayed.length > 0 && relayed.every((call) => call.authorization === `Bearer ${TOKEN}`), "every relayed call carried the connector's token, never the caller's");
});
