// The local runtime end to end: real stdio MCP servers from npm run as child processes, served by
// the project's gateway on loopback, reached with the MCP SDK's own client.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GATEWAY_SECRET_HEADER } from '../../contract/gateway-secret';
import { createLogger } from '../../platform/logger';
import type { StdioConfig } from '../../contract/schemas';
import { WorkloadExitedError, WorkloadSpecError, WorkloadTimeoutError } from '../../activities/workloads/errors';
import { LocalRuntime } from '../../activities/workloads/local-runtime';
import { createWorkloadRuntime } from '../../activities/workloads/create-runtime';
import type { StartedRuntimeWorkload } from '../../activities/workloads/runtime';
import { processesWithEnv } from './support/processes';

const log = createLogger('test-local-workloads', process.env.LOG_LEVEL ?? 'silent');
const moduleFile = (path: string) => fileURLToPath(new URL(`../../node_modules/${path}`, import.meta.url));
const EVERYTHING = moduleFile('@modelcontextprotocol/server-everything/dist/index.js');
const MEMORY = moduleFile('@modelcontextprotocol/server-memory/dist/index.js');
const MARKER = 'WORKLOAD_TEST_MARKER';

// Set in the worker (this process) only: a stdio server must not inherit it.
process.env.WORKER_ONLY_SETTING = 'worker-only';

const runtime = new LocalRuntime({ logger: log, serverStderr: 'ignore', heartbeatIntervalMs: 20 });
test.after.always(() => runtime.close());

/** A stdio config whose processes carry a fresh marker in their env, to find them from outside. */
function stdio(command: string[], extra: Partial<StdioConfig> = {}): { stdio: StdioConfig; marker: string } {
  const marker = randomUUID();
  return { marker, stdio: { image: 'unused-locally:1', command, ...extra, env: { ...extra.env, [MARKER]: marker } } };
}

const everything = (extra: Partial<StdioConfig> = {}) => stdio([process.execPath, EVERYTHING], { args: ['stdio'], ...extra });

/** Connects as the proxy does: with the workload's gateway secret. */
async function connect({ target, gatewaySecret }: StartedRuntimeWorkload): Promise<Client> {
  const client = new Client({ name: 'workload-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers: { [GATEWAY_SECRET_HEADER]: gatewaySecret } } }));
  return client;
}

const textOf = (result: unknown) => ((result as { content: Array<{ text: string }> }).content[0]?.text ?? '');

test('server-everything: start gives a target serving its tools, with the token and the preset env injected', async (t) => {
  const connectorId = randomUUID();
  const token = `tok-${randomUUID()}`;
  const { stdio: config, marker } = everything({ env: { PRESET_FLAG: 'on' }, access_token_env_name: 'EVERYTHING_TOKEN' });
  const began = performance.now();
  const started = await runtime.start({ connectorId, stdio: config, token }, { readinessTimeoutMs: 60_000 });
  const { target } = started;
  t.log(`local stdio connector (server-everything): start → ready in ${(performance.now() - began).toFixed(0)} ms`);
  t.regex(target, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  t.regex(started.gatewaySecret, /^[A-Za-z0-9_-]{43}$/, '32 random bytes');
  const stranger = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  t.is(stranger.status, 401, 'any other local process is refused');

  const client = await connect(started);
  const tools = (await client.listTools()).tools.map((tool) => tool.name);
  t.true(tools.includes('get-env') && tools.includes('echo'));
  const env = JSON.parse(textOf(await client.callTool({ name: 'get-env', arguments: {} }))) as Record<string, string>;
  t.is(env.EVERYTHING_TOKEN, token);
  t.is(env.PRESET_FLAG, 'on');
  t.is(env.WORKER_ONLY_SETTING, undefined, "the worker's own environment is not passed on");
  // Nothing else either: only the preset's env, the token and the SDK's minimal set (PATH, HOME, ...).
  const minimal = Object.keys(getDefaultEnvironment());
  t.deepEqual(Object.keys(env).sort(), [...new Set([...minimal, MARKER, 'PRESET_FLAG', 'EVERYTHING_TOKEN'])].sort());
  await client.close();

  t.deepEqual(processesWithEnv(MARKER, marker), [runtime.pid(connectorId)]);
  // The server works in a scratch directory of its own, not the service's (DATA_DIR and its key are there).
  const cwd = readlinkSync(`/proc/${runtime.pid(connectorId)}/cwd`);
  t.is(runtime.scratchDir(connectorId), cwd);
  t.not(cwd, process.cwd());
  t.false(cwd.startsWith(process.cwd()));
  await runtime.remove(connectorId);
  t.false(existsSync(cwd), 'the scratch directory goes with the workload');
  t.deepEqual(processesWithEnv(MARKER, marker), [], 'remove leaves no process');
  await t.throwsAsync(fetch(target, { method: 'POST' }), undefined, 'nothing listens at the target any more');
  await t.notThrowsAsync(runtime.remove(connectorId), 'removing again is fine');
});

test('CONNECTOR__GATEWAY_MAX_SESSIONS reaches the local gateway: a session beyond it gets 503', async (t) => {
  const capped = await createWorkloadRuntime({
    runtime: 'local', readyTimeoutMs: 60_000, gatewayMaxSessions: 1, container: { network: 'none', owner: 'unused' },
    kube: { namespace: 'unused', gatewayImage: 'unused', reconcileIntervalMs: 60_000, reconcileGraceMs: 120_000, proxySelector: {}, proxyNamespaceSelector: {} },
  }, log);
  t.teardown(() => capped.close());
  const connectorId = randomUUID();
  const started = await capped.start({ connectorId, stdio: everything().stdio, token: null }, { readinessTimeoutMs: 60_000 });
  const client = await connect(started);
  const beyond = await fetch(started.target, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', [GATEWAY_SECRET_HEADER]: started.gatewaySecret },
    body: JSON.stringify({
      jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'second', version: '1' } },
    }),
  });
  t.is(beyond.status, 503);
  t.regex(((await beyond.json()) as { error: { message: string } }).error.message, /Too many sessions/);
  await client.close();
});

test('without a token, or without access_token_env_name, no token variable is set', async (t) => {
  const a = randomUUID();
  const b = randomUUID();
  const noToken = await runtime.start({ connectorId: a, stdio: everything({ access_token_env_name: 'T' }).stdio, token: null }, { readinessTimeoutMs: 60_000 });
  const noName = await runtime.start({ connectorId: b, stdio: everything().stdio, token: 'tok-unused' }, { readinessTimeoutMs: 60_000 });
  for (const started of [noToken, noName]) {
    const client = await connect(started);
    const env = JSON.parse(textOf(await client.callTool({ name: 'get-env', arguments: {} }))) as Record<string, string>;
    t.is(env.T, undefined);
    t.false(Object.values(env).includes('tok-unused'));
    await client.close();
  }
  await Promise.all([runtime.remove(a), runtime.remove(b)]);
});

test('a start with another token replaces the running server: a server reads its env once', async (t) => {
  const connectorId = randomUUID();
  const { stdio: config, marker } = everything({ access_token_env_name: 'EVERYTHING_TOKEN' });
  const envAt = async (started: StartedRuntimeWorkload) => {
    const client = await connect(started);
    const env = JSON.parse(textOf(await client.callTool({ name: 'get-env', arguments: {} }))) as Record<string, string>;
    await client.close();
    return env;
  };
  const first = await runtime.start({ connectorId, stdio: config, token: 'tok-old' }, { readinessTimeoutMs: 60_000 });
  const oldPid = runtime.pid(connectorId);
  t.is((await envAt(first)).EVERYTHING_TOKEN, 'tok-old');

  const second = await runtime.start({ connectorId, stdio: config, token: 'tok-new' }, { readinessTimeoutMs: 60_000 });
  t.is((await envAt(second)).EVERYTHING_TOKEN, 'tok-new');
  t.not(second.gatewaySecret, first.gatewaySecret, 'a new server, a new gateway secret');
  t.not(runtime.pid(connectorId), oldPid, 'a new server process');
  t.deepEqual(processesWithEnv(MARKER, marker), [runtime.pid(connectorId)], 'the old server is gone');
  await runtime.remove(connectorId);
});

test('start is idempotent: concurrent starts share one server, and a later start returns it', async (t) => {
  const connectorId = randomUUID();
  const { stdio: config, marker } = everything();
  const spec = { connectorId, stdio: config, token: null };
  const [first, second] = await Promise.all([
    runtime.start(spec, { readinessTimeoutMs: 60_000 }),
    runtime.start(spec, { readinessTimeoutMs: 60_000 }),
  ]);
  t.deepEqual(first, second);
  const pid = runtime.pid(connectorId);
  t.deepEqual(processesWithEnv(MARKER, marker), [pid], 'one server process');
  t.deepEqual(await runtime.start(spec, { readinessTimeoutMs: 60_000 }), first, 'the same target and gateway secret');
  t.is(runtime.pid(connectorId), pid);
  await runtime.remove(connectorId);
});

test('server-memory: its tools work through the target', async (t) => {
  const connectorId = randomUUID();
  const file = join(mkdtempSync(join(tmpdir(), 'workload-memory-')), 'memory.jsonl');
  const { stdio: config } = stdio([process.execPath, MEMORY], { env: { MEMORY_FILE_PATH: file } });
  const started = await runtime.start({ connectorId, stdio: config, token: null }, { readinessTimeoutMs: 60_000 });
  const client = await connect(started);
  await client.callTool({ name: 'create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote notes'] }] } });
  const graph = textOf(await client.callTool({ name: 'read_graph', arguments: {} }));
  t.true(graph.includes('Ada') && graph.includes('wrote notes'));
  await client.close();
  await runtime.remove(connectorId);
});

test('watch resolves exited, with the reason, when the server is killed from outside; a new start brings up a fresh one', async (t) => {
  const connectorId = randomUUID();
  const { stdio: config, marker } = everything();
  await runtime.start({ connectorId, stdio: config, token: null }, { readinessTimeoutMs: 60_000 });
  let heartbeat!: () => void;
  const heartbeating = new Promise<void>((resolve) => (heartbeat = resolve));
  const watching = runtime.watch(connectorId, { heartbeat, signal: new AbortController().signal });
  await heartbeating;
  const [pid] = processesWithEnv(MARKER, marker);
  process.kill(pid!, 'SIGKILL');
  t.deepEqual(await watching, { kind: 'exited', reason: 'stdio server was killed by signal SIGKILL' });

  const again = await runtime.start({ connectorId, stdio: config, token: null }, { readinessTimeoutMs: 60_000 });
  const client = await connect(again);
  t.true((await client.listTools()).tools.length > 0);
  await client.close();
  t.not(runtime.pid(connectorId), pid);
  await runtime.remove(connectorId);
});

test('watch answers missing for an unknown connector; aborting a watch leaves the server running', async (t) => {
  t.deepEqual(await runtime.watch(randomUUID(), { heartbeat: () => undefined, signal: new AbortController().signal }), { kind: 'missing' });
  const connectorId = randomUUID();
  const { stdio: config, marker } = everything();
  const started = await runtime.start({ connectorId, stdio: config, token: null }, { readinessTimeoutMs: 60_000 });
  const aborter = new AbortController();
  const watching = runtime.watch(connectorId, { heartbeat: () => aborter.abort(new Error('stop watching')), signal: aborter.signal });
  await t.throwsAsync(watching, { message: 'stop watching' });
  t.is(processesWithEnv(MARKER, marker).length, 1);
  const client = await connect(started);
  await t.notThrowsAsync(client.ping());
  await client.close();
  await runtime.remove(connectorId);
});

test('a server that never answers initialize: WorkloadTimeoutError after the limit, and no process left', async (t) => {
  const connectorId = randomUUID();
  const { stdio: config, marker } = stdio([process.execPath, '-e', 'setInterval(() => {}, 1000)']);
  await t.throwsAsync(runtime.start({ connectorId, stdio: config, token: null }, { readinessTimeoutMs: 500 }), {
    instanceOf: WorkloadTimeoutError, message: 'the stdio workload did not become ready within 0.5 s',
  });
  t.deepEqual(processesWithEnv(MARKER, marker), []);
  t.deepEqual(await runtime.watch(connectorId, { heartbeat: () => undefined, signal: new AbortController().signal }), { kind: 'missing' });
});

test('a server that exits before it is ready: WorkloadExitedError with its exit code', async (t) => {
  const { stdio: config } = stdio([process.execPath, '-e', 'process.exit(3)']);
  await t.throwsAsync(runtime.start({ connectorId: randomUUID(), stdio: config, token: null }, { readinessTimeoutMs: 30_000 }), {
    instanceOf: WorkloadExitedError, message: 'stdio server exited with code 3',
  });
});

test('a preset without command cannot run locally: WorkloadSpecError', async (t) => {
  await t.throwsAsync(runtime.start({ connectorId: randomUUID(), stdio: { image: 'mcp/github:1' }, token: null }, { readinessTimeoutMs: 1_000 }), {
    instanceOf: WorkloadSpecError, message: 'a preset without command cannot run as a local process: it needs the container or the Kubernetes runtime (CONNECTOR__STDIO_RUNTIME)',
  });
});

test('reconcile removes the servers of connectors that are not connected; close removes the rest', async (t) => {
  const own = new LocalRuntime({ logger: log, serverStderr: 'ignore', reconcileGraceMs: 0 });
  const kept = { connectorId: randomUUID(), ...everything() };
  const orphan = { connectorId: randomUUID(), ...everything() };
  await own.start({ ...kept, token: null }, { readinessTimeoutMs: 60_000 });
  await own.start({ ...orphan, token: null }, { readinessTimeoutMs: 60_000 });
  const graceful = new LocalRuntime({ logger: log, serverStderr: 'ignore' });
  const young = { connectorId: randomUUID(), ...everything() };
  await graceful.start({ ...young, token: null }, { readinessTimeoutMs: 60_000 });
  t.deepEqual(await graceful.reconcile(async () => false), [], 'just started: the workflow may not have recorded it yet');
  await graceful.close();
  t.deepEqual(processesWithEnv(MARKER, young.marker), []);

  t.deepEqual(await own.reconcile(async (id) => id === kept.connectorId), [orphan.connectorId]);
  t.deepEqual(processesWithEnv(MARKER, orphan.marker), []);
  t.is(processesWithEnv(MARKER, kept.marker).length, 1);
  await own.close();
  t.deepEqual(processesWithEnv(MARKER, kept.marker), []);
});

// Serial: ava runs it before the concurrent tests of this file, so they do not slow it down.
// The times are logged for reading; bench/ is where timings are compared.
test.serial('five start → remove cycles in a row: each gives a server that answers, and leaves no process behind', async (t) => {
  const own = new LocalRuntime({ logger: log, serverStderr: 'ignore' });
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const connectorId = randomUUID();
    const { stdio: config, marker } = everything();
    const began = performance.now();
    const started = await own.start({ connectorId, stdio: config, token: null }, { readinessTimeoutMs: 60_000 });
    times.push(performance.now() - began);
    const client = await connect(started);
    t.true((await client.listTools()).tools.length > 0, `cycle ${i + 1}: the server answers`);
    await client.close();
    await own.remove(connectorId);
    t.deepEqual(processesWithEnv(MARKER, marker), [], `cycle ${i + 1}: no process left`);
  }
  const sorted = [...times].sort((a, b) => a - b);
  t.log(`local stdio (server-everything), 5 connects: median ${sorted[2]!.toFixed(0)} ms, min ${sorted[0]!.toFixed(0)} ms, max ${sorted[4]!.toFixed(0)} ms`);
});
