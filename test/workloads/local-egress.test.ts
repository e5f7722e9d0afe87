// Egress of sandboxed local servers, for real: slirp4netns and nftables in the server's network
// namespace. Two private networks stand in for a company's: network namespaces this test makes,
// each with a listener (10.213.1.2 and 10.213.2.2), joined to the host by veth pairs whose host
// ends (10.213.x.1) are this machine's own addresses. A preset that allows the first reaches it
// and nothing else: not the second, not the host's end of the first (where a listener of the
// test's answers on every address), not the host's loopback. No traffic leaves this machine.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parseUidRange } from '../../config/config';
import { GATEWAY_SECRET_HEADER } from '../../contract/gateway-secret';
import { createLogger } from '../../platform/logger';
import type { StdioConfig } from '../../contract/schemas';
import { EgressNetworks } from '../../activities/workloads/egress-network';
import { WorkloadSpecError } from '../../activities/workloads/errors';
import { LocalRuntime } from '../../activities/workloads/local-runtime';
import type { StartedRuntimeWorkload } from '../../activities/workloads/runtime';
import { sandboxAvailable } from './support/sandbox-gate';
import { openTestNetns, type TestNetns } from './support/test-netns';

const log = createLogger('test-local-egress', process.env.LOG_LEVEL ?? 'silent');
const HOSTILE = fileURLToPath(new URL('../fixtures/hostile-stdio-server.mjs', import.meta.url));
const uidRange = parseUidRange('233000-233099');

type Reached = Array<{ host: string; port: number; outcome: string }>;

async function connect({ target, gatewaySecret }: StartedRuntimeWorkload): Promise<Client> {
  const client = new Client({ name: 'egress-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers: { [GATEWAY_SECRET_HEADER]: gatewaySecret } } }));
  return client;
}

async function reach(client: Client, targets: Array<{ host: string; port: number }>): Promise<string[]> {
  const result = (await client.callTool({ name: 'connect', arguments: { targets } })) as { content: Array<{ text: string }> };
  return (JSON.parse(result.content[0]!.text) as Reached).map((r) => r.outcome);
}

const hostile = (extra: Partial<StdioConfig> = {}): StdioConfig => ({ image: 'unused-locally:1', command: [process.execPath, HOSTILE], ...extra });

if (await sandboxAvailable('test/workloads/local-egress.test.ts', 'egress of sandboxed local servers', uidRange, { egress: true })) {
  const runtime = new LocalRuntime({ logger: log, serverStderr: 'ignore', uidRange, sandbox: true, egress: new EgressNetworks() });
  let allowed: TestNetns;
  let other: TestNetns;
  let host: Server;
  let hostPort: number;
  test.before(async () => {
    [allowed, other] = await Promise.all([openTestNetns(1), openTestNetns(2)]);
    // A service of the test's on every address of this machine: loopback and the veths' host ends.
    host = createServer((socket) => socket.on('error', () => undefined).end('host\n'));
    await new Promise<void>((resolve) => host.listen(0, '0.0.0.0', resolve));
    hostPort = (host.address() as { port: number }).port;
  });
  test.after.always(async () => {
    await runtime.close();
    host?.close();
    await Promise.all([allowed?.close(), other?.close()]);
  });

  const targets = () => [
    { host: allowed.address, port: allowed.port },
    { host: other.address, port: other.port },
    { host: '10.213.1.1', port: hostPort },
    { host: '127.0.0.1', port: hostPort },
  ];

  test('a preset that allows a private network reaches it, and nothing else: not another, not this machine\'s own address in it, not its loopback', async (t) => {
    const connectorId = randomUUID();
    const client = await connect(await runtime.start({ connectorId, token: null, stdio: hostile({ allowed_networks: [allowed.network] }) }, { readinessTimeoutMs: 60_000 }));
    t.truthy(runtime.network(connectorId), 'it joined an egress network');
    t.deepEqual(await reach(client, targets()), ['connected', 'ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED']);
    await client.close();
    await runtime.remove(connectorId);
  });

  test('a preset that allows nothing gets no network at all', async (t) => {
    const connectorId = randomUUID();
    const client = await connect(await runtime.start({ connectorId, token: null, stdio: hostile() }, { readinessTimeoutMs: 60_000 }));
    t.is(runtime.network(connectorId), null);
    t.deepEqual(await reach(client, targets()), ['ENETUNREACH', 'ENETUNREACH', 'ENETUNREACH', 'ECONNREFUSED'], 'its own loopback has nothing on it');
    await client.close();
    await runtime.remove(connectorId);
  });

  test('a preset that allows the internet reaches no private network or address of this machine', async (t) => {
    const connectorId = randomUUID();
    const client = await connect(await runtime.start({ connectorId, token: null, stdio: hostile({ internet: true }) }, { readinessTimeoutMs: 60_000 }));
    t.like(runtime.network(connectorId)?.policy, { internet: true, allowedNetworks: [] });
    t.deepEqual(await reach(client, targets()), ['ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED']);
    await client.close();
    await runtime.remove(connectorId);
  });

  test('an egress network goes with its server, and a runtime that cannot open one refuses the preset, saying what to install', async (t) => {
    const connectorId = randomUUID();
    await runtime.start({ connectorId, token: null, stdio: hostile({ allowed_networks: [allowed.network] }) }, { readinessTimeoutMs: 60_000 });
    const holder = Number(/\/proc\/(\d+)\//.exec(runtime.network(connectorId)!.namespace)![1]);
    await runtime.remove(connectorId);
    t.throws(() => process.kill(holder, 0), { code: 'ESRCH' }, 'the namespace holder is gone');

    const without = new LocalRuntime({ logger: log, serverStderr: 'ignore', uidRange, sandbox: true });
    t.teardown(() => without.close());
    const error = await t.throwsAsync(without.start({ connectorId: randomUUID(), token: null, stdio: hostile({ internet: true }) }, { readinessTimeoutMs: 60_000 }), { instanceOf: WorkloadSpecError });
    t.regex(error!.message, /install slirp4netns, nftables and iproute2/);
  });
}
