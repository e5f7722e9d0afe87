// The MCP conformance suite's authorization scenarios with the service as the OAuth client: for
// each scenario the suite starts an authorization server and an MCP server, and runs
// test/conformance/auth-driver.ts, which connects a connector of a real embedded stack through the
// REST API and the consent page, then uses it through the connector's MCP path. A failing scenario
// must be listed with its reason in test/conformance/expected-auth-failures.json (and a listed one
// that passes fails the test, so the list stays true).
import test from 'ava';
import { readFileSync } from 'node:fs';
import { runAuthDriver, type SpecVersion } from '../conformance/suite-cli';
import { startTestStack } from '../helpers/test-stack';

const EXPECTED = JSON.parse(readFileSync(new URL('../conformance/expected-auth-failures.json', import.meta.url), 'utf8')) as Record<SpecVersion, Record<string, string>>;
const ERAS: SpecVersion[] = ['2025-11-25', '2026-07-28'];

for (const era of ERAS) {
  test.serial(`authorization scenarios at ${era}, the service as the OAuth client`, async (t) => {
    // The suite starts its 14 scenarios at once, each with a driver process that loads tsx and
    // runs a connect flow through Temporal: on a shared 2-core machine that alone can near ava's
    // 3 minutes, so this test gets more, and each driver far more than the suite's default 30 s.
    t.timeout(6 * 60_000);
    // Each era gets a stack that has registered nowhere: the suite's servers are new on every run
    // but their ports are not, and a registration the service kept for an issuer (its address) in
    // the first run would stand in for the registration a scenario of the second run checks for.
    const stack = await startTestStack();
    t.teardown(() => stack.stop());
    const result = await runAuthDriver(['--suite', 'auth', '--spec-version', era], stack.port);
    t.log(`${era}: ${result.passed.size}/${result.scenarios.size} authorization scenarios passed`);
    for (const [scenario, failed] of result.scenarios) if (failed.length > 0) t.log(`  ${scenario} fails ${[...new Set(failed)].join(', ')}`);
    t.true(result.scenarios.size > 0, 'the suite ran authorization scenarios');
    const failing = [...result.scenarios.keys()].filter((scenario) => !result.passed.has(scenario)).sort();
    t.deepEqual(failing, Object.keys(EXPECTED[era]).sort(), `failing scenarios vs test/conformance/expected-auth-failures.json "${era}" (add a new one with its reason; remove one that passes)`);
  });
}
