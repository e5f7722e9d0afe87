// The MCP project's conformance suite (server scenarios) against the MCP project's reference server
// from npm (@modelcontextprotocol/server-everything, Streamable HTTP), once directly and once
// through a connector's MCP path of a real embedded stack, at each protocol revision: every
// scenario that passes directly must pass through the proxy, unless
// test/conformance/expected-failures.json lists it with its reason (and a listed one that passes
// again fails the test, so the list stays true). The same reference server in its stdio mode runs
// as a managed stdio connector (local runtime), served by the project's gateway behind the same
// MCP path: what passes directly over Streamable HTTP must pass through the gateway too, unless
// listed under "everything-stdio". The suite's own fixture servers are not
// published on npm, and their code is not ours to copy: what the reference server cannot do
// fails both ways and says nothing about the proxy.
import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { startEverythingServer, type EverythingServer } from '../fixtures/everything-server';
import { runSuite, type SpecVersion, type SuiteResult } from '../conformance/suite-cli';
import { startTestStack, type TestStack } from '../helpers/test-stack';

type ReferenceName = 'everything';
type ExpectedFailures = Record<ReferenceName | 'everything-stdio', Record<SpecVersion, Record<string, string>>>;
const EVERYTHING_ENTRY = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const STDIO_PRESET = 'mcp+stdio://everything-conformance';

const EXPECTED = JSON.parse(readFileSync(new URL('../conformance/expected-failures.json', import.meta.url), 'utf8')) as ExpectedFailures;
const REFERENCES: ReferenceName[] = ['everything'];
const ERAS: SpecVersion[] = ['2025-11-25', '2026-07-28'];

// `--suite all` takes the pending and extension scenarios too: what the proxy must relay is
// everything the reference server can do, not only what a revision requires.
const serverSuite = (url: string, era: SpecVersion) => runSuite(['server', '--url', url, '--spec-version', era, '--suite', 'all']);

let stack: TestStack;
const upstreams = new Map<ReferenceName, { server: EverythingServer; mcpUrl: string }>();
/** The stdio connector's MCP path: the gateway in front of server-everything's stdio mode. */
let gatewayMcpUrl: string;

test.before(async () => {
  stack = await startTestStack({
    CONNECTOR__STDIO_RUNTIME: 'local',
    CONNECTOR__PRESETS: JSON.stringify([{
      url: STDIO_PRESET, metadata: { name: 'Everything (stdio)', description: 'reference server, stdio mode' },
      stdio: { image: 'mcp/everything', command: [process.execPath], args: [EVERYTHING_ENTRY, 'stdio'] },
    }]),
  });
  for (const name of REFERENCES) {
    const server = await startEverythingServer();
    upstreams.set(name, { server, mcpUrl: await connectorFor(server.url) });
  }
  gatewayMcpUrl = await stdioConnector();
});

async function stdioConnector(): Promise<string> {
  const created = await stack.api('POST', '/api/v1/connectors', { url: STDIO_PRESET });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const connected = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, {});
  if (connected.status !== 200) throw new Error(`connect: ${connected.status} ${connected.text}`);
  return created.body.mcp_url;
}

test.after.always(async () => {
  await stack?.stop();
  for (const { server } of upstreams.values()) await server.stop();
});

async function connectorFor(url: string): Promise<string> {
  const created = await stack.api('POST', '/api/v1/connectors', { url, match_preset: false });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  // The reference servers ask for no credentials; connecting with a token skips the OAuth flow.
  const connected = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: 'conformance-unused-token' });
  if (connected.status !== 200) throw new Error(`connect: ${connected.status} ${connected.text}`);
  return created.body.mcp_url;
}

// Serial: the direct and the proxied run share the reference server's state (subscriptions,
// sessions), and the suite's timeouts should not meet a machine running four of it at once.
for (const name of REFERENCES) {
  for (const era of ERAS) {
    test.serial(`${name} reference server, ${era}: whatever passes directly passes through the connector's MCP path`, async (t) => {
      const upstream = upstreams.get(name)!;
      const direct = await serverSuite(upstream.server.url, era);
      const proxied = await serverSuite(upstream.mcpUrl, era);
      report(t, `${name} ${era}`, direct, proxied);
      t.true(direct.passed.size > 0, 'the reference server passes scenarios directly');
      t.deepEqual([...proxied.scenarios.keys()].sort(), [...direct.scenarios.keys()].sort(), 'the same scenarios ran both ways');
      const lost = [...direct.passed].filter((scenario) => !proxied.passed.has(scenario)).sort();
      const listed = Object.keys(EXPECTED[name][era]).sort();
      t.deepEqual(lost, listed, `regressions through the proxy vs test/conformance/expected-failures.json "${name}" "${era}" (add a new one with its reason; remove one that passes again)`);
    });
  }
}

for (const era of ERAS) {
  test.serial(`everything reference server, ${era}: whatever passes directly over HTTP passes through a stdio connector's gateway`, async (t) => {
    const direct = await serverSuite(upstreams.get('everything')!.server.url, era);
    const gateway = await serverSuite(gatewayMcpUrl, era);
    report(t, `everything-stdio ${era}`, direct, gateway, 'the gateway');
    t.true(gateway.passed.size > 0, 'scenarios pass through the gateway');
    t.deepEqual([...gateway.scenarios.keys()].sort(), [...direct.scenarios.keys()].sort(), 'the same scenarios ran both ways');
    const lost = [...direct.passed].filter((scenario) => !gateway.passed.has(scenario)).sort();
    const listed = Object.keys(EXPECTED['everything-stdio'][era]).sort();
    t.deepEqual(lost, listed, `regressions through the gateway vs test/conformance/expected-failures.json "everything-stdio" "${era}" (add a new one with its reason; remove one that passes again)`);
  });
}

function report(t: ExecutionContext, label: string, direct: SuiteResult, proxied: SuiteResult, via = 'the proxy'): void {
  t.log(`${label}: direct ${direct.passed.size}/${direct.scenarios.size} scenarios passed, through ${via} ${proxied.passed.size}/${proxied.scenarios.size}`);
  for (const [scenario, failed] of proxied.scenarios) {
    if (failed.length === 0) continue;
    const how = direct.passed.has(scenario) ? 'passes directly' : `fails directly too (${unique(direct.scenarios.get(scenario))})`;
    t.log(`  through ${via} ${scenario} fails ${unique(failed)}; it ${how}`);
  }
  for (const scenario of proxied.passed) if (!direct.passed.has(scenario)) t.log(`  ${scenario} passes through ${via} only (directly: ${unique(direct.scenarios.get(scenario))})`);
}

function unique(ids: string[] | undefined): string {
  return [...new Set(ids ?? ['(not run)'])].join(', ');
}
