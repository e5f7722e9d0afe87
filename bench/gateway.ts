// Gateway benchmark (npm run bench:gateway): the project's stdio gateway, as the image runs it
// (dist/gateway.mjs, after `npm run build`, with the node flags of deploy/gateway.Dockerfile's
// CMD), against the two gateways a user would pick
// instead, `supergateway` (stateful Streamable HTTP) and `mcp-proxy` (its stream endpoint), all
// three serving the same stdio server (@modelcontextprotocol/server-everything) on 127.0.0.1.
// At 1 and at 8 concurrent MCP sessions (SDK clients), each session calls `echo` in a loop;
// rounds are interleaved so drift on the machine hits every gateway alike. Printed: calls per
// second and its ratio to the better peer, CPU per call of each gateway's process tree (steadier
// than throughput on a shared machine), and the resident memory of each gateway's whole
// process tree (the gateway and every stdio server it started) while 8 sessions are open.
//
// Env: BENCH_ROUNDS (3), BENCH_CALLS per session per round (300), BENCH_GATEWAYS (all three),
// BENCH_OURS_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p" for our gateway's process),
// BENCH_SERVER=container (each gateway runs the stdio server as `podman|docker run -i` of the
// container tests' image, no network, instead of a child process: what the container runtime
// costs every gateway alike; each tree then holds the `run` client process, while conmon and the
// container's own processes live outside it and are not counted).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { nodeArgsFrom, stop } from './proxy/child';
import { treeCpuMs, treeRssMb, waitForPort } from './gateway/process-tree';
import { freePort } from '../service/free-port';
import { createLogger } from '../platform/logger';
import { testServersImage } from '../test/helpers/for-bench';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const SESSIONS = [1, 8];
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EVERYTHING = `${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
const OURS = `${ROOT}dist/gateway.mjs`;
const node = process.execPath;

interface Gateway { name: string; url: string; pid: number; stop(): Promise<void> }

/** How each gateway is started, as its README has a user do it, around the stdio server's command. */
const GATEWAYS: Record<string, (port: number, server: string[]) => { args: string[]; env?: Record<string, string> }> = {
  ours: (port, server) => ({
    args: [...imageNodeFlags(), ...nodeArgsFrom('BENCH_OURS_NODE_ARGS'), OURS, '--', ...server],
    env: { GATEWAY_PORT: String(port), GATEWAY_HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
  }),
  supergateway: (port, server) => ({
    args: [`${ROOT}node_modules/supergateway/dist/index.js`, '--stdio', server.join(' '),
      '--outputTransport', 'streamableHttp', '--stateful', '--port', String(port), '--logLevel', 'none'],
  }),
  'mcp-proxy': (port, server) => ({
    args: [`${ROOT}node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs`, '--port', String(port), '--host', '127.0.0.1',
      '--server', 'stream', '--', ...server],
  }),
};

/** The stdio server's command: a child process, or (BENCH_SERVER=container) a container of the test servers' image. */
async function serverCommand(): Promise<string[]> {
  if (process.env.BENCH_SERVER !== 'container') return [node, EVERYTHING, 'stdio'];
  const image = await testServersImage(createLogger('bench-gateway', 'info'));
  if (!image.engine) throw new Error(`BENCH_SERVER=container: ${image.reason}`);
  console.log(`stdio server in a container: ${image.engine.program} run -i --network none ${image.image}`);
  return [image.engine.program, 'run', '--rm', '-i', '--network', 'none', '--cap-drop', 'all', image.image, 'stdio'];
}

/** The node flags before dist/gateway.mjs in the gateway image's CMD. */
function imageNodeFlags(): string[] {
  const dockerfile = readFileSync(`${ROOT}deploy/gateway.Dockerfile`, 'utf8');
  const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
  return cmd.slice(1, cmd.indexOf('dist/gateway.mjs'));
}

async function main(): Promise<void> {
  if (!existsSync(OURS)) throw new Error('dist/gateway.mjs is missing: run npm run build first');
  const gateways: Gateway[] = [];
  try {
    const names = process.env.BENCH_GATEWAYS?.split(',') ?? Object.keys(GATEWAYS);
    const server = await serverCommand();
    for (const name of names) gateways.push(await startGateway(name, server));
    const calls = new Map<string, { calls: number; ms: number; cpuMs: number }>();
    const rss = new Map<string, number>();
    console.log(`echo through each gateway, ${ROUNDS} interleaved rounds of ${CALLS} calls per session`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const gateway of rotate(gateways, round)) {
        for (const sessions of SESSIONS) {
          const key = `${gateway.name}@${sessions}`;
          const result = await runSessions(gateway, sessions, () => {
            if (sessions === 8) rss.set(gateway.name, Math.max(rss.get(gateway.name) ?? 0, treeRssMb(gateway.pid)));
          });
          const sum = calls.get(key) ?? { calls: 0, ms: 0, cpuMs: 0 };
          calls.set(key, { calls: sum.calls + result.calls, ms: sum.ms + result.ms, cpuMs: sum.cpuMs + result.cpuMs });
        }
      }
    }
    print(gateways.map((g) => g.name), calls, rss);
  } finally {
    for (const gateway of gateways) await gateway.stop().catch(() => undefined);
  }
}

async function startGateway(name: string, server: string[]): Promise<Gateway> {
  const port = await freePort();
  const { args, env } = GATEWAYS[name]!(port, server);
  const child = spawn(node, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  await waitForPort(port);
  return { name, url: `http://127.0.0.1:${port}/mcp`, pid: child.pid!, stop: () => stop(child) };
}

/** `sessions` clients at once, each calling echo CALLS times; `whileOpen` runs once all have called. */
async function runSessions(gateway: Gateway, sessions: number, whileOpen: () => void): Promise<{ calls: number; ms: number; cpuMs: number }> {
  const clients = await Promise.all(Array.from({ length: sessions }, async () => {
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    await client.callTool({ name: 'echo', arguments: { message: 'warm-up' } });
    return client;
  }));
  const started = performance.now();
  const cpuBefore = treeCpuMs(gateway.pid);
  await Promise.all(clients.map(async (client, i) => {
    for (let call = 0; call < CALLS; call++) {
      const result = await client.callTool({ name: 'echo', arguments: { message: `s${i} c${call}` } });
      if (!JSON.stringify(result.content).includes(`s${i} c${call}`)) throw new Error(`${gateway.name}: a wrong answer`);
    }
  }));
  const ms = performance.now() - started;
  const cpuMs = treeCpuMs(gateway.pid) - cpuBefore;
  whileOpen();
  await Promise.all(clients.map((client) => client.close()));
  return { calls: sessions * CALLS, ms, cpuMs };
}

const rotate = <T>(list: T[], by: number): T[] => list.map((_, i) => list[(i + by) % list.length]!);

function print(names: string[], calls: Map<string, { calls: number; ms: number; cpuMs: number }>, rss: Map<string, number>): void {
  const rate = (name: string, sessions: number) => {
    const s = calls.get(`${name}@${sessions}`)!;
    return (s.calls / s.ms) * 1000;
  };
  const cpuUs = (name: string, sessions: number) => {
    const s = calls.get(`${name}@${sessions}`)!;
    return (s.cpuMs * 1000) / s.calls;
  };
  const peers = names.filter((n) => n !== 'ours');
  if (!names.includes('ours') || peers.length === 0) {
    for (const [key, s] of calls) console.log(`  ${key.padEnd(16)} ${((s.calls / s.ms) * 1000).toFixed(0).padStart(6)} calls/s   RSS ${rss.get(key.split('@')[0]!)?.toFixed(0)} MB`);
    return;
  }
  for (const sessions of SESSIONS) {
    console.log(`\n${sessions} session${sessions > 1 ? 's' : ''}:`);
    for (const name of names) console.log(`  ${name.padEnd(13)} ${rate(name, sessions).toFixed(0).padStart(6)} calls/s   process tree CPU ${cpuUs(name, sessions).toFixed(0)} µs/call`);
    const best = peers.reduce((a, b) => (rate(a, sessions) >= rate(b, sessions) ? a : b));
    console.log(`  ours / ${best} (the better peer): ${(rate('ours', sessions) / rate(best, sessions)).toFixed(2)} (target >= 1.0)`);
    const leanest = peers.reduce((a, b) => (cpuUs(a, sessions) <= cpuUs(b, sessions) ? a : b));
    console.log(`  CPU per call, ours / ${leanest} (the leaner peer): ${(cpuUs('ours', sessions) / cpuUs(leanest, sessions)).toFixed(2)}`);
  }
  console.log('\nprocess-tree RSS with 8 sessions open (the gateway and every stdio server it runs):');
  for (const name of names) console.log(`  ${name.padEnd(13)} ${rss.get(name)!.toFixed(0).padStart(6)} MB`);
  const lightest = peers.reduce((a, b) => (rss.get(a)! <= rss.get(b)! ? a : b));
  console.log(`  ours / ${lightest} (the lighter peer): ${(rss.get('ours')! / rss.get(lightest)!).toFixed(2)} (target <= 1.0)`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
