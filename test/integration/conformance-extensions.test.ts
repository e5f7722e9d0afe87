// The MCP conformance suite's extension scenarios in which no user consents (`--suite
// extensions`), with the service as the OAuth client, each run alone by --scenario. Client
// credentials (SEP-1046): the suite starts an authorization server that offers only the
// client_credentials grant and an MCP server. Enterprise-managed authorization (SEP-990): an
// identity provider that exchanges the user's ID token for an ID-JAG besides, and an authorization
// server that offers only the JWT bearer grant. Workload identity (SEP-1933): an authorization
// server that offers only the JWT bearer grant and verifies the workload JWT the scenario mints;
// the driver writes it into the token file the stack reads (CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE).
// It runs test/conformance/auth-driver.ts, which
// connects a connector of a real embedded stack with the grant and the material the scenario
// hands over, then lists and calls the tools through the connector's MCP path. DPoP (SEP-1932):
// an authorization server that advertises ES256 proofs and issues DPoP-bound tokens, and an MCP
// server that checks a fresh proof on every request (htm, htu, ath, the token's cnf.jkt); the
// -nonce variant asks both the token request and the MCP requests for the server's nonce first.
// These two go through the consent page like any code flow (the driver's default path).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { runAuthDriver } from '../conformance/suite-cli';
import { startTestStack, type TestStack } from '../helpers/test-stack';

const SCENARIOS = [
  'auth/client-credentials-basic', 'auth/client-credentials-jwt', 'auth/enterprise-managed-authorization', 'auth/dpop', 'auth/dpop-nonce',
  'auth/wif-jwt-bearer',
];

let stack: TestStack;
let dir: string;
let tokenFile: string;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wif-'));
  tokenFile = join(dir, 'token');
  stack = await startTestStack({ CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE: tokenFile });
});

test.after.always(async () => {
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

for (const scenario of SCENARIOS) {
  test.serial(`${scenario}: the service obtains and uses the token as the scenario's servers require`, async (t) => {
    t.timeout(4 * 60_000); // the driver's own limit, and the stack's start, beyond ava's 3 minutes
    const result = await runAuthDriver(['--scenario', scenario], stack.port, { CONFORMANCE_WORKLOAD_TOKEN_FILE: tokenFile });
    for (const [name, failed] of result.scenarios) if (failed.length > 0) t.log(`  ${name} fails ${[...new Set(failed)].join(', ')}`);
    t.deepEqual([...result.scenarios.keys()], [scenario], 'the suite ran the scenario');
    t.true(result.passed.has(scenario), `${scenario} passes`);
  });
}
