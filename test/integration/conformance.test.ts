// The MCP project's conformance suite (server scenarios) against its own reference server, once
// directly and once through a connector's MCP path of a real embedded stack, at each protocol
// revision: every scenario that passes directly must pass through the proxy, unless
// test/conformance/expected-failures.json lists it with its reason (and a listed one that passes
// again fails the test, so the list stays true).
import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { startReferenceServer, type ReferenceServer } from '../conformance/reference-server';
import { runServerSuite, type SpecVersion, type SuiteResult } from '../conformance/run-server-suite';
import { startTestStack, type TestStack } from '../helpers/test-stack';

type ExpectedFailures = Record<SpecVersion, Record<string, string>>;

const EXPECTED = JSON.parse(readFileSync(new URL('../conformance/expected-failures.json', import.meta.url), 'utf8')) as ExpectedFailures;

let stack: TestStack;
let reference: ReferenceServer;
let mcpUrl: string;

test.before(async () => {
  reference = await startReferenceServer();
  stack = await startTestStack();
  const created = await stack.api('POST', '/api/v1/connectors', { url: reference.url, match_preset: false });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  // The reference server asks for no credentials; connecting with a token skips the OAuth flow.
  const connected = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: 'conformance-unused-token' });
  if (connected.status !== 200) throw new Error(`connect: ${connected.status} ${connected.text}`);
  mcpUrl = created.body.mcp_url;
});

test.after.always(async () => {
  await stack?.stop();
  await reference?.stop();
});

// Serial: both runs of an era share the reference server's state (subscriptions, sessions).
for (const era of ['2025-11-25', '2026-07-28'] as const) {
  test.serial(`server scenarios at ${era}: whatever passes directly passes through the connector's MCP path`, async (t) => {
    const direct = await runServerSuite(reference.url, era);
    const proxied = await runServerSuite(mcpUrl, era);
    report(t, era, direct, proxied);
    t.true(direct.passed.size > 0, 'the reference server passes scenarios directly');
    t.deepEqual([...proxied.scenarios.keys()].sort(), [...direct.scenarios.keys()].sort(), 'the same scenarios ran both ways');
    const lost = [...direct.passed].filter((name) => !proxied.passed.has(name)).sort();
    const listed = Object.keys(EXPECTED[era]).sort();
    t.deepEqual(lost, listed, `regressions through the proxy vs ${era} in test/conformance/expected-failures.json (add a new one with its reason; remove one that passes again)`);
  });
}

function report(t: ExecutionContext, era: SpecVersion, direct: SuiteResult, proxied: SuiteResult): void {
  t.log(`${era}: direct ${direct.passed.size}/${direct.scenarios.size} scenarios passed, through the proxy ${proxied.passed.size}/${proxied.scenarios.size}`);
  for (const [name, failed] of proxied.scenarios) {
    if (failed.length === 0) continue;
    const how = direct.passed.has(name) ? 'passes directly' : `fails directly too (${unique(direct.scenarios.get(name))})`;
    t.log(`  through the proxy ${name} fails ${unique(failed)}; it ${how}`);
  }
  for (const name of proxied.passed) if (!direct.passed.has(name)) t.log(`  ${name} passes through the proxy only (directly: ${unique(direct.scenarios.get(name))})`);
}

function unique(ids: string[] | undefined): string {
  return [...new Set(ids ?? ['(not run)'])].join(', ');
}
