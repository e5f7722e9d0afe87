// The MCP conformance suite's client credentials scenarios (SEP-1046, `--suite extensions`) with
// the service as the OAuth client, each run alone by --scenario: the suite starts an authorization server that offers
// only the client_credentials grant and an MCP server, and runs test/conformance/auth-driver.ts,
// which connects a connector of a real embedded stack with `grant: client_credentials` and the
// scenario's secret or private key, then lists and calls the tools through the connector's MCP path.
import test from 'ava';
import { runAuthDriver } from '../conformance/suite-cli';
import { startTestStack, type TestStack } from '../helpers/test-stack';

const SCENARIOS = ['auth/client-credentials-basic', 'auth/client-credentials-jwt'];

let stack: TestStack;

test.before(async () => {
  stack = await startTestStack();
});

test.after.always(async () => {
  await stack?.stop();
});

for (const scenario of SCENARIOS) {
  test.serial(`${scenario}: the service obtains and uses a client credentials token`, async (t) => {
    t.timeout(4 * 60_000); // the driver's own limit, and the stack's start, beyond ava's 3 minutes
    const result = await runAuthDriver(['--scenario', scenario], stack.port);
    for (const [name, failed] of result.scenarios) if (failed.length > 0) t.log(`  ${name} fails ${[...new Set(failed)].join(', ')}`);
    t.deepEqual([...result.scenarios.keys()], [scenario], 'the suite ran the scenario');
    t.true(result.passed.has(scenario), `${scenario} passes`);
  });
}
