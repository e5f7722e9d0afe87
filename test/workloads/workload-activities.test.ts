// The activity wrappers in a real worker against the Temporal dev server, with the local runtime
// and real stdio servers: what the workflow receives (target and sealed gateway secret, or failure
// type and retryability), that history holds the sealed token only and names the preset instead
// of carrying its env values, and that cancelling a watch stops only the watch.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createLogger } from '../../platform/logger';
import { SecretBox, secretContext, type Ciphertext } from '../../platform/secret-box';
import { GATEWAY_SECRET_HEADER } from '../../contract/gateway-secret';
import type { Preset } from '../../contract/schemas';
import { createWorkloadActivities, type StartWorkloadInput } from '../../activities/workloads/activities';
import { LocalRuntime } from '../../activities/workloads/local-runtime';
import { startTemporalDevServer, type TemporalDevServer } from '../../stack/servers/temporal-dev-server';
import type { StartOutcome } from './fixtures/workload-workflows';
import { processesWithEnv } from './support/processes';

const log = createLogger('test-workload-activities', process.env.LOG_LEVEL ?? 'silent');
const EVERYTHING = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
const taskQueue = 'workload-activities';
const READINESS_MS = 5_000;

let dataDir: string;
let server: TemporalDevServer;
let connection: Connection;
let client: Client;
let worker: Worker;
let running: Promise<void>;
const box = new SecretBox(randomBytes(32));
const runtime = new LocalRuntime({ logger: log, serverStderr: 'ignore' });
const PRESET_ENV_VALUE = `preset-env-${randomUUID()}`;
// Workloads are always started from a preset, by reference: one per case below.
const NEVER_READY_MARKER = randomUUID();
const WATCHED_MARKER = randomUUID();
const presets: Preset[] = [{
  url: 'mcp+stdio://everything',
  stdio: { image: 'unused:1', command: [process.execPath, EVERYTHING, 'stdio'], env: { PRESET_SETTING: PRESET_ENV_VALUE }, access_token_env_name: 'API_TOKEN' },
}, {
  url: 'mcp+stdio://never-ready',
  stdio: { image: 'x:1', command: [process.execPath, '-e', 'setInterval(() => {}, 1000)'], env: { MARKER: NEVER_READY_MARKER } },
}, {
  url: 'mcp+stdio://image-only', stdio: { image: 'mcp/github:1' },
}, {
  url: 'mcp+stdio://exits', stdio: { image: 'x:1', command: [process.execPath, '-e', 'process.exit(7)'] },
}, {
  url: 'mcp+stdio://true', stdio: { image: 'x:1', command: ['true'] },
}, {
  url: 'mcp+stdio://watched', stdio: { image: 'x:1', command: [process.execPath, EVERYTHING, 'stdio'], env: { MARKER: WATCHED_MARKER } },
}];

/**
 * The runtime with READINESS_MS for the server that never gets ready (whose timeout the test is
 * about) and a limit no busy machine reaches for every other start, so that a loaded machine
 * starting a server slowly cannot turn a start that should succeed into a timeout.
 */
function patient(inner: LocalRuntime): LocalRuntime {
  return new Proxy(inner, {
    get(target, key) {
      if (key === 'start') {
        return (spec: Parameters<LocalRuntime['start']>[0], options: Parameters<LocalRuntime['start']>[1]) =>
          target.start(spec, { ...options, readinessTimeoutMs: spec.stdio.env?.MARKER === NEVER_READY_MARKER ? options.readinessTimeoutMs : 10 * 60_000 });
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'workload-activities-'));
  server = await startTemporalDevServer({ dataDir, headless: true, log });
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  worker = await Worker.create({
    connection: await NativeConnection.connect({ address: server.address }),
    taskQueue,
    workflowsPath: fileURLToPath(new URL('./fixtures/workload-workflows.ts', import.meta.url)),
    activities: createWorkloadActivities({ runtime: patient(runtime), readinessTimeoutMs: READINESS_MS, secrets: box, presets }),
  });
  running = worker.run();
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection });
});

test.after.always(async () => {
  worker?.shutdown();
  await running?.catch(() => undefined);
  await connection?.close();
  await runtime.close();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const startWorkload = (input: StartWorkloadInput) =>
  client.workflow.execute('startWorkloadWorkflow', { taskQueue, workflowId: `start-${input.connectorId}`, args: [input] }) as Promise<StartOutcome>;

/** Every string and payload (bytes, decoded) in a workflow's history. */
async function historyText(workflowId: string): Promise<string> {
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') texts.push(value);
    else if (value instanceof Uint8Array) texts.push(Buffer.from(value).toString('utf8'));
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(await client.workflow.getHandle(workflowId).fetchHistory());
  return texts.join('\n');
}

test.serial('startWorkload resolves the preset and opens the sealed token in the worker; history holds neither, nor the gateway secret', async (t) => {
  const connectorId = randomUUID();
  const token = `tok-${randomUUID()}`;
  const tokenSealed = box.seal(token, secretContext(connectorId, 'access_token'));
  const outcome = await startWorkload({ connectorId, presetUrl: 'mcp+stdio://everything', tokenSealed });
  if (!('target' in outcome)) return t.fail(JSON.stringify(outcome));
  const gatewaySecret = box.open(outcome.gatewaySecret, secretContext(connectorId, 'gateway_secret'));
  const history = await historyText(`start-${connectorId}`);

  const refused = await fetch(outcome.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  t.is(refused.status, 401, 'the gateway serves only whoever has its secret');
  const mcp = new McpClient({ name: 'workload-activities-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(outcome.target), { requestInit: { headers: { [GATEWAY_SECRET_HEADER]: gatewaySecret } } }));
  const result = await mcp.callTool({ name: 'get-env', arguments: {} }) as { content: Array<{ text: string }> };
  const env = JSON.parse(result.content[0]!.text) as Record<string, string>;
  t.is(env.API_TOKEN, token);
  t.is(env.PRESET_SETTING, PRESET_ENV_VALUE, 'the preset env, looked up by the worker');
  await mcp.close();

  const again = await startWorkload({ connectorId, presetUrl: 'mcp+stdio://everything', tokenSealed });
  if (!('target' in again)) return t.fail(JSON.stringify(again));
  t.is(box.open(again.gatewaySecret, secretContext(connectorId, 'gateway_secret')), gatewaySecret, 'a start of the running workload answers its secret');

  t.true(history.includes(tokenSealed));
  t.true(history.includes(outcome.gatewaySecret));
  t.false(history.includes(token), 'the plaintext token never reaches history');
  t.false(history.includes(PRESET_ENV_VALUE), 'nor the preset env value');
  t.false(history.includes(gatewaySecret), 'nor the gateway secret');
  await runtime.remove(connectorId);
});

test.serial('a preset this worker no longer has is a permanent failure naming it', async (t) => {
  const outcome = await startWorkload({ connectorId: randomUUID(), presetUrl: 'mcp+stdio://retired', tokenSealed: null });
  t.deepEqual(outcome, { failure: {
    type: 'Unprocessable', nonRetryable: true,
    message: 'the preset mcp+stdio://retired is no longer configured (CONNECTOR__PRESETS); connectors made from it cannot connect',
  } });
});

test.serial('startWorkload failures reach the workflow typed: 504 timeout, 422 spec, 502 exit (non-retryable), others retryable', async (t) => {
  const marker = NEVER_READY_MARKER;
  const outcomes = await Promise.all([
    startWorkload({ connectorId: randomUUID(), presetUrl: 'mcp+stdio://never-ready', tokenSealed: null }),
    startWorkload({ connectorId: randomUUID(), presetUrl: 'mcp+stdio://image-only', tokenSealed: null }),
    startWorkload({ connectorId: randomUUID(), presetUrl: 'mcp+stdio://exits', tokenSealed: null }),
    startWorkload({ connectorId: randomUUID(), presetUrl: 'mcp+stdio://true', tokenSealed: 'v1.not.a.ciphertext' as Ciphertext }),
  ]);
  t.deepEqual(outcomes.slice(0, 3), [
    { failure: { type: 'UpstreamTimeout', nonRetryable: true, message: 'the stdio workload did not become ready within 5 s' } },
    { failure: { type: 'Unprocessable', nonRetryable: true, message: 'a preset without command cannot run as a local process: it needs the container or the Kubernetes runtime (CONNECTOR__STDIO_RUNTIME)' } },
    { failure: { type: 'UpstreamError', nonRetryable: true, message: 'stdio server exited with code 7' } },
  ]);
  t.like(outcomes[3], { failure: { nonRetryable: false } }, 'a token that cannot be opened is an ordinary (retryable) failure');
  t.deepEqual(processesWithEnv('MARKER', marker), [], 'the server that timed out is gone');
});

test.serial('watchWorkload heartbeats until cancelled, and cancelling leaves the server running; then reports its exit', async (t) => {
  const connectorId = randomUUID();
  const marker = WATCHED_MARKER;
  const started = await startWorkload({ connectorId, presetUrl: 'mcp+stdio://watched', tokenSealed: null });
  t.regex('target' in started ? started.target : '', /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

  const cancelled = await client.workflow.start('watchWorkloadWorkflow', { taskQueue, workflowId: `watch-${connectorId}`, args: [{ connectorId }] });
  await waitForRunningActivity(cancelled.workflowId);
  await cancelled.signal('stopWatching');
  t.is(await cancelled.result(), 'watch cancelled');
  const [pid] = processesWithEnv('MARKER', marker);
  t.truthy(pid, 'the server still runs');

  const watching = await client.workflow.start('watchWorkloadWorkflow', { taskQueue, workflowId: `watch2-${connectorId}`, args: [{ connectorId }] });
  await waitForRunningActivity(watching.workflowId);
  process.kill(pid!, 'SIGTERM');
  t.is(await watching.result(), JSON.stringify({ kind: 'exited', reason: 'stdio server was killed by signal SIGTERM' }));
  await runtime.remove(connectorId);
});

async function waitForRunningActivity(workflowId: string): Promise<void> {
  for (;;) {
    const described = await client.workflow.getHandle(workflowId).describe();
    // 2: PENDING_ACTIVITY_STATE_STARTED (the enum lives in @temporalio/proto, not a dependency here).
    if ((described.raw.pendingActivities ?? []).some((activity) => Number(activity.state) === 2)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
