// The container runtime against the real engine on this machine (podman here): real images built
// from Debian packages and npm, real sandboxes read back with `inspect`, real MCP traffic through
// the project's gateway. Without podman or Docker every test here is skipped, and says why.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { promisify } from 'node:util';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ContainerRuntime } from '../../activities/workloads/container-runtime';
import { containerName, CONNECTOR_LABEL } from '../../activities/workloads/container-run-args';
import { WorkloadExitedError } from '../../activities/workloads/errors';
import type { StartedRuntimeWorkload } from '../../activities/workloads/runtime';
import { GATEWAY_SECRET_HEADER } from '../../contract/gateway-secret';
import { createLogger } from '../../platform/logger';
import type { StdioConfig } from '../../contract/schemas';
import { testServersImage, type TestImage } from '../helpers/container-images';

const exec = promisify(execFile);
const log = createLogger('test-container-workloads', process.env.LOG_LEVEL ?? 'silent');
const owner = `test-${randomUUID().slice(0, 8)}`;
let image: TestImage;
let runtime: ContainerRuntime;
let hostService: Server;

test.before(async () => {
  image = await testServersImage(log);
  if (!image.engine) return;
  runtime = new ContainerRuntime({ engine: image.engine, owner, logger: log, serverStderr: 'ignore', reconcileGraceMs: 0 });
  // A service on the host's loopback that no container may reach.
  hostService = createServer((socket) => socket.end('host secret\n'));
  await new Promise<void>((resolve) => hostService.listen(0, '127.0.0.1', resolve));
});

test.after.always(async () => {
  await runtime?.close();
  hostService?.close();
});

/** Registers a test that needs the engine; skipped (visibly, with the reason) without one. */
function engineTest(title: string, fn: (t: import('ava').ExecutionContext, img: { engine: NonNullable<TestImage['engine']>; image: string }) => Promise<void>) {
  test.serial(title, async (t) => {
    if (!image.engine) {
      t.log(`SKIPPED: ${image.reason}`);
      t.pass('no container engine on this machine');
      return;
    }
    await fn(t, image as { engine: NonNullable<TestImage['engine']>; image: string });
  });
}

const everything = (img: string, extra: Partial<StdioConfig> = {}): StdioConfig => ({ image: img, ...extra });
const probe = (img: string, extra: Partial<StdioConfig> = {}): StdioConfig => ({ image: img, command: ['node', '/srv/probe-server.mjs'], ...extra });

async function connect({ target, gatewaySecret }: StartedRuntimeWorkload): Promise<Client> {
  const client = new Client({ name: 'container-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers: { [GATEWAY_SECRET_HEADER]: gatewaySecret } } }));
  return client;
}

const textOf = (result: unknown) => ((result as { content: Array<{ text: string }> }).content[0]?.text ?? '');
const callProbe = async (client: Client, args: Record<string, unknown>) => JSON.parse(textOf(await client.callTool({ name: 'probe', arguments: args }))) as unknown;

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
  const began = performance.now();
  const started = await runtime.start(
    { connectorId, stdio: everything(img.image, { env: { PRESET_FLAG: 'on' }, access_token_env_name: 'EVERYTHING_TOKEN', resources: { limits: { memory: '256Mi', cpu: '500m' } } }), token },
    { readinessTimeoutMs: 60_000 },
  );
  t.log(`container stdio connector (server-everything): start → ready in ${(performance.now() - began).toFixed(0)} ms`);
  const client = await connect(started);
  const env = JSON.parse(textOf(await client.callTool({ name: 'get-env', arguments: {} }))) as Record<string, string>;
  t.is(env.EVERYTHING_TOKEN, token, 'the token is injected under access_token_env_name');
  t.is(env.PRESET_FLAG, 'on');
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
  t.is(c.HostConfig.NetworkMode, 'none', 'a network namespace of its own with loopback only');
  t.deepEqual((c.Mounts ?? []).filter((m: { Type: string }) => m.Type === 'bind'), [], 'no host mounts');
  t.true(Object.keys(c.HostConfig.Tmpfs ?? {}).includes('/tmp'), 'a private /tmp');
  t.is(c.Config.Labels[CONNECTOR_LABEL], connectorId);
  t.false(JSON.stringify(c.Config.Cmd ?? []).includes(token) || JSON.stringify(c.Args ?? []).includes(token), 'the token is not on a command line');

  await runtime.remove(connectorId);
  t.false(await containerExists(containerName(connectorId)), 'remove leaves no container');
});

engineTest("a server cannot reach the host's loopback services, the worker's environment or another container's", async (t, img) => {
  const [a, b] = [randomUUID(), randomUUID()];
  const tokenB = `tok-b-${randomUUID()}`;
  const startedA = await runtime.start({ connectorId: a, stdio: probe(img.image), token: null }, { readinessTimeoutMs: 60_000 });
  await runtime.start({ connectorId: b, stdio: probe(img.image, { access_token_env_name: 'B_TOKEN' }), token: tokenB }, { readinessTimeoutMs: 60_000 });
  const client = await connect(startedA);
  const port = (hostService.address() as { port: number }).port;
  t.not(await callProbe(client, { kind: 'tcp', host: '127.0.0.1', port }), 'connected', "the host's loopback is not the container's");
  t.not(await callProbe(client, { kind: 'tcp', host: '10.88.0.1', port }), 'connected', 'no route to the bridge either');
  t.regex(String(await callProbe(client, { kind: 'read', path: `/proc/${process.pid}/environ` })), /ENOENT|EACCES/, "the worker's process is not visible");
  const env = JSON.stringify(await callProbe(client, { kind: 'env' }));
  t.false(env.includes(tokenB), "another container's token is nowhere in this one");
  const { stdout: psOut } = await exec('podman', ['top', containerName(a), 'pid', 'args']);
  t.false(psOut.includes('B_TOKEN'), 'the other server is not among its processes');
  t.deepEqual(await callProbe(client, { kind: 'id' }), { uid: 65534, gid: 65534 });
  await client.close();
  await Promise.all([runtime.remove(a), runtime.remove(b)]);
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

engineTest('an image that is not here and cannot be pulled: the failure names the image', async (t) => {
  // A registry on a closed loopback port: the pull fails at once, and nothing leaves this machine.
  const missing = `127.0.0.1:9/connector-registry/missing:${randomUUID().slice(0, 8)}`;
  const error = await t.throwsAsync(runtime.start({ connectorId: randomUUID(), stdio: { image: missing }, token: null }, { readinessTimeoutMs: 60_000 }));
  t.true(error instanceof WorkloadExitedError);
  t.true(error!.message.includes(missing), error!.message);
});
