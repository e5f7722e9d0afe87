// The MCP project's conformance suite (server scenarios, `--suite all`) as the judge of a toolset as
// an MCP server, at each revision: every scenario that passes directly against its member (a real
// SDK v2 server serving both eras, with tools, a prompt and a resource) passes through the toolset
// too. The suite's own fixture tools exist on neither, so what needs them fails both ways and says
// nothing about the toolset.
import test from 'ava';
import { runSuite, type SpecVersion } from '../conformance/suite-cli';
import { startToolsMcpServer, type ToolsMcpServer } from '../fixtures/tools-mcp-server';
import { startTestStack, type TestStack } from '../helpers/test-stack';

let stack: TestStack;
let member: ToolsMcpServer;
let toolsetUrl: string;

test.before(async () => {
  // The suite sends no credential, the toolset the connector's token: the member serves both alike.
  member = await startToolsMcpServer({ name: 'conformance', tokens: { '': ['echo', 'lookup'], 'conformance-token': ['echo', 'lookup'] }, extras: true });
  stack = await startTestStack({ CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8' });
  const { body: connector } = await stack.api('POST', '/api/v1/connectors', { url: member.url, match_preset: false });
  await stack.api('POST', `/api/v1/connectors/${connector.id}/connect`, { access_token: 'conformance-token' });
  const { body: toolset } = await stack.api('POST', '/api/v1/toolsets', { name: 'conformance', members: [{ connector_id: connector.id, prefix: 'm' }] });
  toolsetUrl = toolset.mcp_url;
});

test.after.always(async () => {
  await stack?.stop();
  await member?.close();
});

for (const era of ['2025-11-25', '2026-07-28'] as SpecVersion[]) {
  test.serial(`${era}: whatever passes directly against the member passes through the toolset`, async (t) => {
    const suite = (url: string) => runSuite(['server', '--url', url, '--spec-version', era, '--suite', 'all']);
    const direct = await suite(member.url);
    const through = await suite(toolsetUrl);
    t.log(`${era}: directly ${direct.passed.size}/${direct.scenarios.size}, through the toolset ${through.passed.size}/${through.scenarios.size}`);
    for (const [scenario, failed] of through.scenarios) if (failed.length && direct.passed.has(scenario)) t.log(`  through the toolset ${scenario} fails ${failed.join(', ')}`);
    t.true(direct.passed.size > 0);
    t.deepEqual([...direct.passed].filter((s) => !through.passed.has(s)).sort(), [], 'lost through the toolset');
  });
}
