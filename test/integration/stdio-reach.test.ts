// Issue 37's high finding, tried on every runtime this machine has: a hostile stdio server (a
// shell and a TCP client, test/fixtures/hostile-stdio-server.mjs) connected by alice, with callers
// authenticated, tries every listener of the platform: found in /proc, not listed by hand (the
// API and proxy, the metrics port, the workloads' gateways, the Temporal SDK's metrics, the
// embedded Temporal and FerretDB), a listener of the test's on every address of this machine, and
// two private networks (network namespaces this test makes). It reaches none of them; a preset
// that allows one of the private networks reaches that one only. The table of attempts is logged
// (closing-note material). Kubernetes: kwok runs no pod, so there the NetworkPolicy is the test
// (test/workloads/kube-network-policy.test.ts and kube-runtime.test.ts).
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import test, { type ExecutionContext } from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parseUidRange } from '../../config/config';
import { createLogger } from '../../platform/logger';
import { freePort } from '../../service/free-port';
import { testServersImage, type TestImage } from '../helpers/container-images';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { listenersOf } from '../workloads/support/listeners';
import { sandboxAvailable } from '../workloads/support/sandbox-gate';
import { openTestNetns, type TestNetns } from '../workloads/support/test-netns';
import { withoutEngine } from '../helpers/engine-gate';

const HOSTILE_FILE = fileURLToPath(new URL('../fixtures/hostile-stdio-server.mjs', import.meta.url));
const HOSTILE = readFileSync(HOSTILE_FILE, 'utf8');
const KEYS = { alice: `alice-${randomUUID()}`, bob: `bob-${randomUUID()}` };
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
const RANGE = '234000-234099';

interface Target { what: string; host: string; port: number }
type Reached = Array<{ host: string; port: number; outcome: string }>;

// Declared first: ava takes tests declared before the file's first await settles only.
const available = await sandboxAvailable('test/integration/stdio-reach.test.ts', 'stdio servers reach no platform listener', parseUidRange(RANGE), { egress: true });
let allowed: TestNetns;
let other: TestNetns;
let everywhere: Server;
let image: TestImage;

if (available) test.before(async () => {
  [allowed, other] = await Promise.all([openTestNetns(5), openTestNetns(6)]);
  // A service of the test's on every address of this machine: its loopback and the veths' host ends.
  everywhere = createServer((socket) => socket.on('error', () => undefined).end('this machine\n'));
  await new Promise<void>((resolve) => everywhere.listen(0, '0.0.0.0', resolve));
  image = await testServersImage(createLogger('test-stdio-reach', 'silent'));
});

if (available) test.after.always(async () => {
  everywhere?.close();
  await Promise.all([allowed?.close(), other?.close()]);
});

/** The stdio preset of the hostile server on a runtime: as a local command, or in the test image with `node -e`. */
function hostilePreset(name: string, runtime: 'local' | 'container', extra: Record<string, unknown> = {}) {
  const stdio = runtime === 'local'
    ? { image: 'unused-locally', command: [process.execPath, HOSTILE_FILE] }
    : { image: (image as { image: string }).image, command: ['node', '--input-type=module', '-e', HOSTILE] };
  return { url: `mcp+stdio://${name}`, metadata: { name, description: 'a shell and a TCP client' }, stdio: { ...stdio, ...extra } };
}

async function startStack(runtime: 'local' | 'container'): Promise<TestStack> {
  return startTestStack({
    CONNECTOR__STDIO_RUNTIME: runtime,
    CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'alice', sha256: sha256Hex(KEYS.alice) }, { subject: 'bob', sha256: sha256Hex(KEYS.bob) }]),
    CONNECTOR__METRICS_PORT: String(await freePort()),
    CONNECTOR__STDIO_UID_RANGE: RANGE,
    CONNECTOR__PRESETS: JSON.stringify([
      hostilePreset('hostile', runtime),
      hostilePreset('hostile-allowed', runtime, { allowed_networks: [allowed.network] }),
    ]),
  });
}

async function connectAs(stack: TestStack, owner: keyof typeof KEYS, url: string): Promise<Client> {
  const auth = { authorization: `Bearer ${KEYS[owner]}` };
  const created = await stack.api('POST', '/api/v1/connectors', { url }, auth);
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text}`);
  const connected = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, {}, auth);
  if (connected.status !== 200) throw new Error(`connect answered ${connected.status}: ${connected.text}`);
  const client = new Client({ name: `reach-${owner}`, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(created.body.mcp_url), { requestInit: { headers: auth } }));
  return client;
}

/** Every platform listener there is now (this process, Temporal, FerretDB), and the test's own targets. */
function targets(stack: TestStack): Target[] {
  const names = new Map<number, string>([[process.pid, 'service (API, proxy, metrics, gateways, worker)']]);
  if (stack.serverPids.temporal) names.set(stack.serverPids.temporal, 'embedded Temporal');
  if (stack.serverPids.ferretdb) names.set(stack.serverPids.ferretdb, 'embedded FerretDB');
  const port = (everywhere.address() as { port: number }).port;
  return [
    ...listenersOf([...names.keys()]).filter((l) => l.port !== port).map((l) => ({ what: names.get(l.pid)!, host: l.host, port: l.port })),
    { what: 'this machine, its own address in the allowed network', host: '10.213.5.1', port },
    { what: 'private network (allowed for hostile-allowed)', host: allowed.address, port: allowed.port },
    { what: 'another private network', host: other.address, port: other.port },
  ];
}

async function attempt(t: ExecutionContext, client: Client, list: Target[], label: string): Promise<Map<string, string>> {
  const result = (await client.callTool({ name: 'connect', arguments: { targets: list.map(({ host, port }) => ({ host, port })) } })) as { content: Array<{ text: string }> };
  const reached = JSON.parse(result.content[0]!.text) as Reached;
  const outcomes = new Map(list.map((target, i) => [`${target.what} ${target.host}:${target.port}`, reached[i]!.outcome]));
  t.log(`${label}:\n${[...outcomes].map(([k, v]) => `  ${v.padEnd(13)} ${k}`).join('\n')}`);
  return outcomes;
}

async function tryEverything(t: ExecutionContext, runtime: 'local' | 'container'): Promise<void> {
  const stack = await startStack(runtime);
  try {
    // What the start said: how servers run, and who reaches the embedded servers.
    const said = readFileSync(stack.logFile, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { msg: string; stdioRuntime?: string });
    t.regex(said.find((line) => line.stdioRuntime)?.msg ?? '', runtime === 'local' ? /^stdio servers run as local processes: each server its own uid in namespaces of its own/ : /^stdio servers run in podman containers: no network but its own loopback unless its preset allows egress, filtered; no registry contacted$/);
    t.truthy(said.find((line) => /^the embedded Temporal \(127\.0\.0\.1:\d+\) and FerretDB \(127\.0\.0\.1:\d+\) take no credentials and listen on loopback only: this machine's own processes and users reach them; stdio servers do not/.test(line.msg)),
      'one line says who reaches the embedded servers');
    const alice = await connectAs(stack, 'alice', 'mcp+stdio://hostile');
    const bob = await connectAs(stack, 'bob', 'mcp+stdio://hostile');
    const list = targets(stack);
    t.true(list.some((l) => l.what === 'embedded Temporal') && list.some((l) => l.what === 'embedded FerretDB'), 'the platform\'s listeners were found');
    t.true(list.filter((l) => l.what.startsWith('service')).length >= 4, 'the API and proxy, metrics, and two gateways at least');
    const plain = await attempt(t, alice, list, `${runtime}: alice's hostile server`);
    t.deepEqual([...plain].filter(([, outcome]) => outcome === 'connected'), [], 'no platform listener, no address of this machine, no private network');

    const allowedClient = await connectAs(stack, 'alice', 'mcp+stdio://hostile-allowed');
    const opened = await attempt(t, allowedClient, targets(stack), `${runtime}: alice's hostile server, its preset allowing ${allowed.network}`);
    t.deepEqual([...opened].filter(([, outcome]) => outcome === 'connected').map(([what]) => what), [`private network (allowed for hostile-allowed) ${allowed.address}:${allowed.port}`]);
    await Promise.all([alice.close(), bob.close(), allowedClient.close()]);
  } finally {
    await stack.stop();
  }
}

if (available) {
  test.serial('local runtime: a hostile stdio server reaches no platform listener, no address of this machine, no private network it is not allowed', async (t) => {
    await tryEverything(t, 'local');
  });

  test.serial('container runtime: the same, from a container', async (t) => {
    if (!image.engine) {
      withoutEngine(t, image.reason);
      return;
    }
    await tryEverything(t, 'container');
  });
}
