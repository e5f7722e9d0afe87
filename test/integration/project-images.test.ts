// The project's images built for real and run: the API and the proxy as containers of the service
// image and the worker as a container of the worker image (host network, non-root, read-only
// root, no capabilities), against the embedded Temporal and FerretDB. The worker drives the
// host's podman through its socket (a `podman system service` this test starts, mounted into the
// worker's container alone) to run the stdio server's own container. A stdio connector is
// connected, called through the proxy container and disconnected: its container goes. The
// gateway image answers its health check on a loopback port (host network). Without podman or Docker
// the tests say they skipped, and why; with Docker alone the worker runs on the host.
import { execFile, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { containerName } from '../../activities/workloads/container-run-args';
import { createLogger } from '../../platform/logger';
import { roleCommand } from '../../bench/start-flags';
import { freePort } from '../../service/free-port';
import { testServersImage, type TestImage } from '../helpers/container-images';
import { projectImages, type ProjectImages } from '../helpers/project-images';
import { startSplitProcesses } from '../helpers/split-processes';
import { apiClient, eventually, type ApiCall } from '../helpers/test-stack';
import { withoutEngine } from '../helpers/engine-gate';

const exec = promisify(execFile);
const TOKEN = 'image-token-8e21d4';
let images: ProjectImages;
let servers: TestImage;

test.before(async () => {
  const log = createLogger('test-project-images', 'warn');
  // npm test builds these before ava starts. Run alone on a cold machine, the build takes minutes,
  // past ava's 3-minute timeout: `npm run images` first (or `npx ava --timeout=20m`).
  images = await projectImages(log);
  servers = await testServersImage(log);
});

/** `engine run` of one of the project's images as its USER, hardened as the chart runs it; removed when the test ends. */
async function runContainer(t: ExecutionContext, args: { image: string; env: Record<string, string>; options: string[]; command?: string[] }): Promise<string> {
  const program = images.engine!.program;
  const name = `connector-registry-test-${crypto.randomBytes(4).toString('hex')}`;
  t.teardown(() => exec(program, ['rm', '--force', name]).then(() => undefined, () => undefined));
  // Values through the engine's own environment (`--env NAME`), so that no secret is in its argv.
  const envNames = Object.keys(args.env).flatMap((key) => ['--env', key]);
  const run = () => exec(program, [
    'run', '--detach', '--pull=never', '--name', name, '--read-only', '--tmpfs', '/tmp',
    '--cap-drop', 'all', '--security-opt', 'no-new-privileges', ...envNames, ...args.options, args.image, ...(args.command ?? []),
  ], { env: { ...process.env, ...args.env } });
  for (let attempt = 1; ; attempt++) {
    try {
      await run();
      return name;
    } catch (error) {
      if (attempt >= 3 || !runtimeStartFailed(error)) throw error;
      t.log(`${program} run: the runtime failed to start the container (attempt ${attempt}), trying again`);
      await exec(program, ['rm', '--force', name]).catch(() => undefined);
    }
  }
}

/**
 * runc, under load, sometimes fails to start a container it was given correctly ("can't get
 * final child's PID from pipe: EOF", exit 126): the engine's fault, not the image's, so it is
 * tried again; any other failure is the test's answer.
 */
function runtimeStartFailed(error: unknown): boolean {
  const { code, stderr } = error as { code?: number; stderr?: string };
  return code === 126 && /runc create failed|OCI runtime/i.test(stderr ?? '');
}

/** Ready when `path` answers 200; a container that stops fails at once, its own output saying why. */
async function ready(t: ExecutionContext, name: string, api: ApiCall, path: string): Promise<void> {
  const program = images.engine!.program;
  const running = async () => (await exec(program, ['container', 'inspect', '--format', '{{.State.Running}}', name])).stdout.trim() === 'true';
  try {
    const outcome = await eventually(async () => {
      if ((await api('GET', path).catch(() => undefined))?.status === 200) return 'ready';
      return (await running()) ? undefined : 'stopped';
    }, 120_000, `${name} to answer ${path}`);
    if (outcome === 'stopped') throw new Error(`${name} stopped before answering ${path}`);
  } catch (error) {
    const { stdout, stderr } = await exec(images.engine!.program, ['logs', name]).catch(() => ({ stdout: '', stderr: '' }));
    t.log(stdout, stderr);
    throw error;
  }
}

const skipped = (t: ExecutionContext): boolean => {
  if (images.engine && servers.engine) return false;
  withoutEngine(t, (images as { reason?: string }).reason ?? (servers as { reason?: string }).reason ?? 'no engine');
  return true;
};

/**
 * The host's podman as an Engine API socket in a directory of its own, for the worker's container
 * (the root engine's socket is root's: opened to the container's unprivileged user, in a private
 * directory that only this test's containers are given).
 */
async function podmanSocket(t: ExecutionContext, dir: string): Promise<string> {
  const socket = path.join(dir, 'podman.sock');
  const service = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], { stdio: 'ignore' });
  t.teardown(() => { service.kill('SIGTERM'); });
  await eventually(async () => (fs.existsSync(socket) ? true : undefined), 30_000, 'the podman API socket');
  fs.chmodSync(socket, 0o666);
  return socket;
}

test('the service image runs the API and the proxy, the worker image the worker; a stdio server in its container is called through the proxy container', async (t) => {
  if (skipped(t)) return;
  const { service, worker } = images as Extract<ProjectImages, { engine: object }>;
  for (const image of [service, worker]) t.log(`${image.tag}: ${(image.bytes / 1e6).toFixed(0)} MB, ${image.built ? `built in ${image.seconds.toFixed(0)} s` : 'cached'}`);
  const presets = JSON.stringify([
    { url: 'mcp+stdio://everything', metadata: { name: 'Everything', description: 'reference server, in its image' },
      stdio: { image: (servers as { image: string }).image, access_token_env_name: 'EVERYTHING_TOKEN' } },
  ]);
  const split = await startSplitProcesses(t, { CONNECTOR__STDIO_RUNTIME: 'container', CONNECTOR__PRESETS: presets });
  const apiPort = await freePort();
  const api = apiClient(`http://127.0.0.1:${apiPort}`);
  const role = (script: 'api' | 'proxy', port: number) => runContainer(t, {
    image: service.tag, env: { ...split.env, PORT: String(port) }, options: ['--network', 'host'], command: roleCommand(script),
  });
  for (const image of [service.tag, worker.tag]) {
    const user = (await exec(images.engine!.program, ['image', 'inspect', '--format', '{{.Config.User}}', image])).stdout.trim();
    t.is(user, '1000:1000', `${image}: the roles run as the image's unprivileged user, on a read-only root`);
  }
  let workerContainer: string | undefined;
  if (images.engine!.program === 'podman') {
    const socketDir = fs.mkdtempSync(path.join(split.dataDir, 'engine-'));
    fs.chmodSync(socketDir, 0o755);
    const socket = await podmanSocket(t, socketDir);
    const workerPort = await freePort();
    workerContainer = await runContainer(t, {
      // CONTAINER_HOST as an option, not through this process's environment: it would turn the
      // host's own `podman run` into a client of the socket path it names.
      image: worker.tag, env: { ...split.env, PORT: String(workerPort) },
      options: ['--network', 'host', '--volume', `${socket}:/run/podman/podman.sock`, '--env', 'CONTAINER_HOST=unix:///run/podman/podman.sock'],
    });
    await ready(t, workerContainer, apiClient(`http://127.0.0.1:${workerPort}`), '/readyz');
  } else {
    t.log('the worker runs on the host: the worker image holds podman\'s client, and the engine here is Docker');
    await split.start('dist/worker.mjs', 'worker');
  }
  const apiContainer = await role('api', apiPort);
  const proxyContainer = await role('proxy', split.proxyPort);
  await ready(t, apiContainer, api, '/readyz');
  await ready(t, proxyContainer, apiClient(`http://127.0.0.1:${split.proxyPort}`), '/readyz');

  const { body: created } = await api('POST', '/api/v1/connectors', { url: 'mcp+stdio://everything' });
  const connected = await api('POST', `/api/v1/connectors/${created.id}/connect`, { access_token: TOKEN });
  if (connected.status !== 200 && workerContainer) t.log((await exec(images.engine!.program, ['logs', workerContainer]).catch((e: Error) => e)));
  t.is(connected.status, 200, connected.text);
  t.is(connected.body.state, 'connected');
  t.true(new URL(created.mcp_url).port === String(split.proxyPort), 'the mcp_url names the proxy container');
  const exists = () => exec(images.engine!.program, ['container', 'exists', containerName(created.id)]).then(() => true, () => false);
  t.true(await exists(), 'the server runs in its container');

  const client = new Client({ name: 'project-images-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(created.mcp_url)));
  const echoed = await client.callTool({ name: 'echo', arguments: { message: 'through the proxy container' } });
  t.true(JSON.stringify(echoed.content).includes('through the proxy container'));
  const seen = JSON.stringify((await client.callTool({ name: 'get-env', arguments: {} })).content);
  t.true(seen.includes(TOKEN), 'the token reaches the server container under access_token_env_name');
  await client.close();

  const disconnected = await api('POST', `/api/v1/connectors/${created.id}/disconnect`);
  t.is(disconnected.body.state, 'disconnected');
  await eventually(async () => ((await exists()) ? undefined : true), 30_000, 'the server container to go');
  t.false(await exists());
});

// A stdio MCP server from the SDK the image already holds: the gateway image has no other.
const SERVER_IN_IMAGE = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
const server = new McpServer({ name: 'in-gateway-image', version: '1.0.0' });
server.registerTool('ping', { description: 'answers pong' }, async () => ({ content: [{ type: 'text', text: 'pong from the gateway image' }] }));
await server.connect(new StdioServerTransport());
`;

test('the gateway image serves a stdio server on a loopback port, and its health check', async (t) => {
  if (skipped(t)) return;
  const { gateway } = images as Extract<ProjectImages, { engine: object }>;
  t.log(`${gateway.tag}: ${(gateway.bytes / 1e6).toFixed(0)} MB, ${gateway.built ? `built in ${gateway.seconds.toFixed(0)} s` : 'cached'}`);
  const port = await freePort();
  // The image's CMD; a process source (the attach source needs a Kubernetes API to attach through).
  const name = await runContainer(t, {
    // The host's network, not `--publish`: rootful podman publishes a port by address translation
    // without holding it, so the kernel may hand the same port to another test's listener, whose
    // connections are then sent into this container (seen: EHOSTUNREACH in an unrelated test).
    image: gateway.tag,
    env: { GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: String(port), GATEWAY_COMMAND: JSON.stringify(['node', '--input-type=module', '--eval', SERVER_IN_IMAGE]) },
    options: ['--network', 'host'],
  });
  await ready(t, name, apiClient(`http://127.0.0.1:${port}`), '/healthz');
  const client = new Client({ name: 'gateway-image-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  const answer = await client.callTool({ name: 'ping', arguments: {} });
  await client.close();
  t.deepEqual(answer.content, [{ type: 'text', text: 'pong from the gateway image' }]);
  const user = (await exec(images.engine!.program, ['image', 'inspect', '--format', '{{.Config.User}}', gateway.tag])).stdout.trim();
  t.is(user, '1000:1000', 'the image runs as its unprivileged user');
});
