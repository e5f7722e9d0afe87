// Workloads benchmark (npm run bench:workloads): one stdio preset, the reference server
// (@modelcontextprotocol/server-everything), run by the local runtime (a child process of the
// worker, its own uid where the process may switch) and by the container runtime (podman or
// Docker, the same server in the test-servers image, hardened as the runtime runs every
// container), each on an embedded stack of its own started here, one after the other. For each:
// the connect time of BENCH_CONNECTORS connectors (create + connect through the REST API, one
// after another), the resident memory each running connector adds on the host (its processes:
// for a container, the engine's CLI the worker holds, conmon and the container's processes), and
// echo calls through the proxy and the gateway at 1 and 8 MCP sessions (calls per second; CPU
// per call of the stack's process tree and the containers'). The machine is shared: CPU per call
// is the steadier figure. Needs the toolchain (npm test builds the images; without an engine the
// container half says it did not run).
//
// Env: BENCH_CONNECTORS (5), BENCH_CALLS per session (200), BENCH_RUNTIMES (local,container).
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { containerName } from '../activities/workloads/container-run-args';
import { createLogger } from '../platform/logger';
import { startTestStack, testServersImage, type TestStack } from '../test/helpers/for-bench';
import { treeOf } from './gateway/process-tree';
import { cpuMs } from './proxy/cpu-time';
import { rssMb } from './proxy/proc-memory';
import { percentile } from './lifecycle/rounds';

const exec = promisify(execFile);
const require = createRequire(import.meta.url);
const EVERYTHING = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const CONNECTORS = Number(process.env.BENCH_CONNECTORS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const RUNTIMES = (process.env.BENCH_RUNTIMES ?? 'local,container').split(',');
const TOKEN = 'bench-workloads-token';

interface Figures {
  connectMs: number[];
  rssPerConnectorMb: number;
  calls: { sessions: number; perSecond: number; cpuUsPerCall: number }[];
}

async function main(): Promise<void> {
  const results = new Map<string, Figures>();
  const image = await testServersImage(createLogger('bench-workloads', 'warn'));
  for (const runtime of RUNTIMES) {
    if (runtime === 'container' && !image.engine) {
      console.log(`container runtime: not run (${(image as { reason: string }).reason})`);
      continue;
    }
    const stdio = runtime === 'local'
      ? { image: 'mcp/everything', command: [process.execPath], args: [EVERYTHING, 'stdio'], access_token_env_name: 'EVERYTHING_TOKEN' }
      : { image: (image as { image: string }).image, access_token_env_name: 'EVERYTHING_TOKEN' };
    const stack = await startTestStack({
      LOG_LEVEL: 'warn', CONNECTOR__STDIO_RUNTIME: runtime,
      CONNECTOR__PRESETS: JSON.stringify([{ url: 'mcp+stdio://everything', metadata: { name: 'Everything', description: 'reference server' }, stdio }]),
    });
    try {
      results.set(runtime, await measure(stack, runtime, runtime === 'container' ? image.engine?.program ?? null : null));
    } finally {
      await stack.stop();
    }
  }
  print(results);
}

async function measure(stack: TestStack, runtime: string, engine: string | null): Promise<Figures> {
  const servers = new Set([stack.serverPids.temporal, stack.serverPids.ferretdb].filter((p): p is number => p !== null));
  const before = hostRss(servers, []);
  const ids: string[] = [];
  const connectMs: number[] = [];
  for (let i = 0; i < CONNECTORS; i++) {
    const { body: created } = await stack.api('POST', '/api/v1/connectors', { url: 'mcp+stdio://everything' });
    const began = performance.now();
    const connected = await stack.api('POST', `/api/v1/connectors/${created.id}/connect`, { access_token: TOKEN });
    connectMs.push(performance.now() - began);
    if (connected.body?.state !== 'connected') throw new Error(`${runtime}: connect answered ${connected.status} ${connected.text}`);
    ids.push(created.id);
  }
  const containers = engine ? await containerPids(engine, ids) : [];
  const rssPerConnectorMb = (hostRss(servers, containers) - before) / CONNECTORS;
  const mcpUrl = (await stack.api('GET', `/api/v1/connectors/${ids[0]}`)).body.mcp_url as string;
  const calls = [];
  for (const sessions of [1, 8]) calls.push(await callEcho(mcpUrl, sessions, () => cpuMs([...stackTree(servers), ...containerTree(containers)])));
  for (const id of ids) await stack.api('DELETE', `/api/v1/connectors/${id}`);
  return { connectMs, rssPerConnectorMb, calls };
}

/** The stack's process and its descendants, without the dev servers (Temporal, FerretDB) and theirs. */
function stackTree(servers: Set<number>): number[] {
  const skip = new Set([...servers].flatMap((pid) => treeOf(pid)));
  return treeOf(process.pid).filter((pid) => !skip.has(pid));
}

function containerTree(containers: number[]): number[] {
  return containers.flatMap((pid) => treeOf(pid));
}

/** Resident memory of the stack's processes and of the containers' (each pid: its main process or conmon). */
function hostRss(servers: Set<number>, containers: number[]): number {
  let total = 0;
  for (const pid of new Set([...stackTree(servers), ...containerTree(containers)])) {
    try {
      total += rssMb(pid);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** Each container's conmon (its processes are conmon's descendants). */
async function containerPids(engine: string, ids: string[]): Promise<number[]> {
  const pids: number[] = [];
  for (const id of ids) {
    const { stdout } = await exec(engine, ['inspect', '--format', '{{.State.ConmonPid}} {{.State.Pid}}', containerName(id)]);
    const [conmon, main] = stdout.trim().split(' ').map(Number);
    pids.push(conmon || main!);
  }
  return pids;
}

async function callEcho(url: string, sessions: number, cpu: () => number) {
  const clients = await Promise.all(Array.from({ length: sessions }, async () => {
    const client = new Client({ name: 'bench-workloads', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await client.callTool({ name: 'echo', arguments: { message: 'warm-up' } });
    return client;
  }));
  const cpuBefore = cpu();
  const started = performance.now();
  await Promise.all(clients.map(async (client, i) => {
    for (let call = 0; call < CALLS; call++) {
      const result = await client.callTool({ name: 'echo', arguments: { message: `s${i} c${call}` } });
      if (!JSON.stringify(result.content).includes(`s${i} c${call}`)) throw new Error('a wrong answer');
    }
  }));
  const ms = performance.now() - started;
  const cpuUsPerCall = ((cpu() - cpuBefore) * 1000) / (sessions * CALLS);
  await Promise.all(clients.map((client) => client.close()));
  return { sessions, perSecond: (sessions * CALLS * 1000) / ms, cpuUsPerCall };
}

function print(results: Map<string, Figures>): void {
  console.log(`\nstdio preset server-everything, ${CONNECTORS} connectors per runtime, ${CALLS} echo calls per session`);
  for (const [runtime, f] of results) {
    const sorted = [...f.connectMs].sort((a, b) => a - b);
    console.log(`${runtime.padEnd(10)} connect p50 ${percentile(sorted, 50).toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms; RSS per running connector ${f.rssPerConnectorMb.toFixed(1)} MB`);
    for (const c of f.calls) console.log(`           ${c.sessions} session${c.sessions > 1 ? 's' : ' '}: ${c.perSecond.toFixed(0).padStart(5)} calls/s through the proxy, CPU ${c.cpuUsPerCall.toFixed(0)} µs/call (stack + containers)`);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
