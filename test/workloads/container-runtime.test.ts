// The container runtime against the real engine on this machine (podman here): real images built
// from Debian packages and npm, real sandboxes read back with `inspect`, real MCP traffic through
// the project's gateway, a hostile server trying what it can reach. Without podman or Docker every
// test here is skipped, and says why.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ContainerEngine } from '../../activities/workloads/container-engine';
import { ContainerRuntime } from '../../activities/workloads/container-runtime';
import { EgressNetworks } from '../../activities/workloads/egress-network';
import { containerName, CONNECTOR_LABEL, STOP_TIMEOUT_S } from '../../activities/workloads/container-run-args';
import { WorkloadExitedError } from '../../activities/workloads/errors';
import type { StartedRuntimeWorkload } from '../../activities/workloads/runtime';
import { GATEWAY_SECRET_HEADER } from '../../contract/gateway-secret';
import { createLogger } from '../../platform/logger';
import type { StdioConfig } from '../../contract/schemas';
import { testServersImage, type TestImage } from '../helpers/container-images';
import { openTestNetns, type TestNetns } from './support/test-netns';
import { withoutEngine } from '../helpers/engine-gate';

const exec = promisify(execFile);
const log = createLogger('test-container-workloads', process.env.LOG_LEVEL ?? 'silent');
const owner = `test-${randomUUID().slice(0, 8)}`;
const HOSTILE = readFileSync(fileURLToPath(new URL('../fixtures/hostile-stdio-server.mjs', import.meta.url)), 'utf8');
let image: TestImage;
let runtime: ContainerRuntime;
let hostService: Server;
let allowed: TestNetns;
let other: TestNetns;

test.before(async () => {
  image = await testServersImage(log);
  if (!image.engine) return;
  runtime = new ContainerRuntime({ engine: image.engine, owner, logger: log, serverStderr: 'ignore', reconcileGraceMs: 0, egress: new EgressNetworks() });
  // A service on every address of the host (its loopback, the test networks' host ends) that no container may reach.
  hostService = createServer((socket) => socket.on('error', () => undefined).end('host secret\n'));
  await new Promise<void>((resolve) => hostService.listen(0, '0.0.0.0', resolve));
  [allowed, other] = await Promise.all([openTestNetns(3), openTestNetns(4)]);
});

test.after.always(async () => {
  await runtime?.close();
  hostService?.close();
  await Promise.all([allowed?.close(), other?.close()]);
});

/** Registers a test that needs the engine; skipped (visibly, with the reason) without one. */
function engineTest(title: string, fn: (t: import('ava').ExecutionContext, img: { engine: NonNullable<TestImage['engine']>; image: string }) => Promise<void>) {
  test.serial(title, async (t) => {
    if (!image.engine) {
      withoutEngine(t, image.reason);
      return;
    }
    await fn(t, image as { engine: NonNullable<TestImage['engine']>; image: string });
  });
}

const everything = (img: string, extra: Partial<StdioConfig> = {}): StdioConfig => ({ image: img, ...extra });
/** The hostile server (test/fixtures), given to the image's node on its command line. */
const hostile = (img: string, extra: Partial<StdioConfig> = {}): StdioConfig => ({ image: img, command: ['node', '--input-type=module', '-e', HOSTILE], ...extra });

async function connect({ target, gatewaySecret }: StartedRuntimeWorkload): Promise<Client> {
  const client = new Client({ name: 'container-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers: { [GATEWAY_SECRET_HEADER]: gatewaySecret } } }));
  return client;
}

const textOf = (result: unknown) => ((result as { content: Array<{ text: string }> }).content[0]?.text ?? '');
const callTool = async <T>(client: Client, name: string, args: Record<string, unknown> = {}) => JSON.parse(textOf(await client.callTool({ name, arguments: args }))) as T;
const reach = async (client: Client, targets: Array<{ host: string; port: number }>) =>
  (await callTool<Array<{ outcome: string }>>(client, 'connect', { targets })).map((r) => r.outcome);

async function inspect(name: string): Promise<any> {
  const { stdout } = await exec('podman', ['inspect', name]);
  return (JSON.parse(stdout) as any[])[0];
}

async function containerExists(name: string): Promise<boolean> {
  return exec('podman', ['container', 'exists', name]).then(() => true, () => false);
}

engineTest('a preset defined only by its image runs, sandboxed as configured, and answers through the gateway', async (t, img) => {
  const connectorId = randomUUID();
  const token = `tok-${randomUUID()}`;
  const apiKey = `key-${randomUUID()}`; // a connect's value for the preset's env_inputs
  const began = performance.now();
  const started = await runtime.start(
    {
      connectorId, token, inputs: { SERVICE_API_KEY: apiKey },
      stdio: everything(img.image, {
        env: { PRESET_FLAG: 'on' }, env_inputs: [{ name: 'SERVICE_API_KEY', secret: true, required: true }],
        access_token_env_name: 'EVERYTHING_TOKEN', resources: { limits: { memory: '256Mi', cpu: '500m' } },
      }),
    },
    { readinessTimeoutMs: 60_000 },
  );
  t.log(`container stdio connector (server-everything): start → ready in ${(performance.now() - began).toFixed(0)} ms`);
  const client = await connect(started);
  const env = JSON.parse(textOf(await client.callTool({ name: 'get-env', arguments: {} }))) as Record<string, string>;
  t.is(env.EVERYTHING_TOKEN, token, 'the token is injected under access_token_env_name');
  t.is(env.PRESET_FLAG, 'on');
  t.is(env.SERVICE_API_KEY, apiKey, "the connect's env input is in the server's environment");
  t.is(env.CONNECTOR__ENCRYPTION_KEY, undefined);
  await client.close();

  const c = await inspect(containerName(connectorId));
  t.is(c.Config.User, '65534:65534', 'not root');
  t.true(c.HostConfig.ReadonlyRootfs, 'read-only root filesystem');
  t.deepEqual(c.HostConfig.CapAdd ?? [], []);
  t.true((c.EffectiveCaps ?? []).length === 0, `no capabilities: ${JSON.stringify(c.EffectiveCaps)}`);
  t.true((c.HostConfig.SecurityOpt ?? []).some((o: string) => o.startsWith('no-new-privileges')), 'no new privileges');
  t.is(c.HostConfig.Memory, 256 * 1024 * 1024, 'the preset memory limit');
  t.is(c.HostConfig.NanoCpus, 500_000_000, 'the preset CPU limit');
  t.is(c.HostConfig.PidsLimit, 256, 'a pids limit');
  t.is(c.Config.StopTimeout, STOP_TIMEOUT_S, 'a stop kills a server that ignores SIGTERM after 2 s, not the default 10 s');
  t.is(c.HostConfig.NetworkMode, 'none', 'a network namespace of its own with loopback only');
  t.deepEqual((c.Mounts ?? []).filter((m: { Type: string }) => m.Type === 'bind'), [], 'no host mounts');
  t.true(Object.keys(c.HostConfig.Tmpfs ?? {}).includes('/tmp'), 'a private /tmp');
  t.is(c.Config.Labels[CONNECTOR_LABEL], connectorId);
  for (const secret of [token, apiKey]) {
    t.false(JSON.stringify(c.Config.Cmd ?? []).includes(secret) || JSON.stringify(c.Args ?? []).includes(secret), 'neither the token nor an env input is on a command line');
  }

  await runtime.remove(connectorId);
  t.false(await containerExists(containerName(connectorId)), 'remove leaves no container');
});

engineTest("a server cannot reach the host (its loopback, its own addresses), the worker's environment or another container's", async (t, img) => {
  const [a, b] = [randomUUID(), randomUUID()];
  const tokenB = `tok-b-${randomUUID()}`;
  const startedA = await runtime.start({ connectorId: a, stdio: hostile(img.image), token: null }, { readinessTimeoutMs: 60_000 });
  await runtime.start({ connectorId: b, stdio: hostile(img.image, { access_token_env_name: 'B_TOKEN' }), token: tokenB }, { readinessTimeoutMs: 60_000 });
  const client = await connect(startedA);
  const port = (hostService.address() as { port: number }).port;
  t.deepEqual(await reach(client, [{ host: '127.0.0.1', port }, { host: '10.213.3.1', port }, { host: allowed.address, port: allowed.port }]),
    ['ECONNREFUSED', 'ENETUNREACH', 'ENETUNREACH'], 'its own loopback only: no route to the host or any network');
  const read = await callTool<Array<{ outcome: string }>>(client, 'read', { paths: [`/proc/${process.pid}/environ`] });
  t.regex(read[0]!.outcome, /ENOENT|EACCES/, "the worker's process is not visible");
  const env = JSON.stringify((await callTool<{ env: unknown }>(client, 'identity')).env);
  t.false(env.includes(tokenB), "another container's token is nowhere in this one");
  const { stdout: psOut } = await exec('podman', ['top', containerName(a), 'pid', 'args']);
  t.false(psOut.includes('B_TOKEN'), 'the other server is not among its processes');
  t.like(await callTool<{ uid: number; gid: number; noNewPrivs: string }>(client, 'identity'), { uid: 65534, gid: 65534, noNewPrivs: '1' });
  await client.close();
  await Promise.all([runtime.remove(a), runtime.remove(b)]);
});

engineTest('a preset that allows a private network: the container joins a filtered egress network and reaches that network only', async (t, img) => {
  const connectorId = randomUUID();
  const started = await runtime.start({ connectorId, stdio: hostile(img.image, { allowed_networks: [allowed.network] }), token: null }, { readinessTimeoutMs: 60_000 });
  const c = await inspect(containerName(connectorId));
  t.regex(c.HostConfig.NetworkMode, /^ns:\/proc\/\d+\/ns\/net$/, 'the egress network\'s namespace, not a bridge');
  const client = await connect(started);
  const port = (hostService.address() as { port: number }).port;
  t.deepEqual(await reach(client, [
    { host: allowed.address, port: allowed.port }, { host: other.address, port: other.port },
    { host: '10.213.3.1', port }, { host: '127.0.0.1', port },
  ]), ['connected', 'ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED'], 'the allowed network, and not another, nor the host\'s address inside it, nor loopback');
  await client.close();
  await runtime.remove(connectorId);
});

engineTest('1 and 8 sessions at once through one container', async (t, img) => {
  const connectorId = randomUUID();
  const started = await runtime.start({ connectorId, stdio: everything(img.image), token: null }, { readinessTimeoutMs: 60_000 });
  for (const sessions of [1, 8]) {
    const clients = await Promise.all(Array.from({ length: sessions }, () => connect(started)));
    const answers = await Promise.all(clients.map((c, i) => c.callTool({ name: 'echo', arguments: { message: `s${i}` } })));
    t.deepEqual(answers.map(textOf), clients.map((_c, i) => `Echo: s${i}`));
    await Promise.all(clients.map((c) => c.close()));
  }
  await runtime.remove(connectorId);
});

engineTest("a worker that crashed leaves containers behind: the next worker's reconciler reaps them, and a new start replaces them", async (t, img) => {
  const crashed = new ContainerRuntime({ engine: img.engine, owner, logger: log, serverStderr: 'ignore' });
  // Its gateways and engine clients would outlive the test otherwise; by then its containers are reaped.
  t.teardown(() => crashed.close());
  const [orphan, restarted] = [randomUUID(), randomUUID()];
  await crashed.start({ connectorId: orphan, stdio: everything(img.image), token: null }, { readinessTimeoutMs: 60_000 });
  await crashed.start({ connectorId: restarted, stdio: everything(img.image), token: null }, { readinessTimeoutMs: 60_000 });
  // The crashed worker's memory is gone (its runtime object is dropped without close); its containers are not.
  t.true(await containerExists(containerName(orphan)));
  const next = new ContainerRuntime({ engine: img.engine, owner, logger: log, serverStderr: 'ignore', reconcileGraceMs: 0 });
  const started = await next.start({ connectorId: restarted, stdio: everything(img.image), token: null }, { readinessTimeoutMs: 60_000 });
  const client = await connect(started);
  t.is(textOf(await client.callTool({ name: 'echo', arguments: { message: 'again' } })), 'Echo: again', 'the workflow starts it again');
  await client.close();
  const removed = await next.reconcile(async () => false);
  t.true(removed.includes(orphan), 'the orphan is reaped');
  t.false(await containerExists(containerName(orphan)));
  // A container of another deployment on the same engine is never this one's to reap.
  const other = new ContainerRuntime({ engine: img.engine, owner: `${owner}-other`, logger: log, serverStderr: 'ignore' });
  const foreign = randomUUID();
  await other.start({ connectorId: foreign, stdio: everything(img.image), token: null }, { readinessTimeoutMs: 60_000 });
  await next.reconcile(async () => false);
  t.true(await containerExists(containerName(foreign)), "another deployment's container survives");
  await Promise.all([next.close(), other.close()]);
  t.false(await containerExists(containerName(restarted)));
  t.false(await containerExists(containerName(foreign)));
});

/** The engine on this machine, every call it is given written down first. */
class RecordingEngine extends ContainerEngine {
  readonly calls: string[][] = [];
  override run(args: string[], timeoutMs?: number): Promise<string> {
    this.calls.push(args);
    return super.run(args, timeoutMs);
  }
}

engineTest('no registry is contacted unless pulls are allowed: a missing image fails naming the setting, and `run` starts the image by its id', async (t, img) => {
  const engine = new RecordingEngine('podman');
  const strict = new ContainerRuntime({ engine, owner, logger: log, serverStderr: 'ignore' });
  t.teardown(() => strict.close());
  const missing = `example.invalid/connector-registry/missing:${randomUUID().slice(0, 8)}`;
  const error = await t.throwsAsync(strict.start({ connectorId: randomUUID(), stdio: { image: missing }, token: null }, { readinessTimeoutMs: 60_000 }));
  t.true(error instanceof WorkloadExitedError);
  t.is(error!.message, `the image ${missing} is not on this machine, and the container runtime pulls no image (CONNECTOR__CONTAINER_PULL=missing allows it)`);
  t.false(engine.calls.some((args) => args.includes('pull')), `no pull: ${JSON.stringify(engine.calls)}`);

  const connectorId = randomUUID();
  await strict.start({ connectorId, stdio: everything(img.image), token: null }, { readinessTimeoutMs: 60_000 });
  const { stdout } = await exec('podman', ['image', 'inspect', '--format', '{{.Id}}', img.image]);
  const c = await inspect(containerName(connectorId));
  t.is(c.Image, stdout.trim(), 'the container runs the image found here, by id');
  const command = c.Config.CreateCommand as string[];
  t.true(command.includes(stdout.trim()) && !command.includes(img.image), `run named the image by its id, no name to resolve: ${command.join(' ')}`);
  t.is(command[command.indexOf('--pull') + 1], 'never');
  t.false(engine.calls.some((args) => args.includes('pull')), 'still no pull');
  await strict.remove(connectorId);
});

engineTest('with pulls allowed, an image that is not here and cannot be pulled: the failure names the image', async (t, img) => {
  const pulling = new ContainerRuntime({ engine: img.engine, owner, logger: log, serverStderr: 'ignore', pull: 'missing' });
  t.teardown(() => pulling.close());
  // A registry on a closed loopback port: the pull fails at once, and nothing leaves this machine.
  const missing = `127.0.0.1:9/connector-registry/missing:${randomUUID().slice(0, 8)}`;
  const error = await t.throwsAsync(pulling.start({ connectorId: randomUUID(), stdio: { image: missing }, token: null }, { readinessTimeoutMs: 60_000 }));
  t.true(error instanceof WorkloadExitedError);
  t.true(error!.message.includes(missing), error!.message);
  t.regex(error!.message, /could not be pulled/);
});
