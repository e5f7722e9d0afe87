// Tasks benchmark (npm run bench:tasks): what a tool call costs when the service runs it as a task
// of its own (a Temporal workflow, workflows/tool-task.ts) against the same call relayed, on the
// embedded stack in front of an MCP server without task support (test/fixtures/tasks-mcp-server.ts,
// in this process). Three paths, rounds alternating so that drift hits all alike:
// - relayed: a client without the Tasks extension, slow_compute with seconds 0;
// - inline task: a declaring client, the same call, which ends within the sync window and is
//   answered as a plain call (the workflow started, run and released);
// - task: a declaring client, a call that outlasts the window (seconds 0.4), answered with a task
//   and polled with tasks/get every 50 ms until it completes.
// Prints per path the latency (p50, p99) and the CPU per call of this process (proxy, API, worker,
// upstream) and of the Temporal and FerretDB servers, and each as a ratio of the relayed call's.
//
// Env: BENCH_ROUNDS (3), BENCH_CALLS per round and path (40).
import { mcpRpc, startTasksMcpServer, startTestStack } from '../test/helpers/for-bench';
import { addSpent, cpuMeter, type CpuSample } from './lifecycle/cpu-meter';
import { percentile } from './lifecycle/rounds';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALLS = Number(process.env.BENCH_CALLS ?? 40);

const upstream = await startTasksMcpServer({ tasks: false });
const stack = await startTestStack({ CONNECTOR__RATE_LIMIT_PER_OWNER: 'off', LOG_LEVEL: 'warn', CONNECTOR__TASK_SYNC_WINDOW_MS: '300' });
try {
  const { body: connector } = await stack.api('POST', '/api/v1/connectors', { url: upstream.url, match_preset: false });
  await stack.api('POST', `/api/v1/connectors/${connector.id}/connect`, { access_token: 'bench-token' });
  const rpc = async (method: string, params: Record<string, unknown>, name: string, declared = true) => (await mcpRpc(connector.mcp_url, method, params, name, { declared })).body.result;
  const call = (seconds: number, declared: boolean) => rpc('tools/call', { name: 'slow_compute', arguments: { seconds } }, 'slow_compute', declared);
  const paths = [
    { name: 'relayed', run: () => call(0, false) },
    { name: 'inline task', run: () => call(0, true) },
    {
      name: 'task', async run() {
        const created = await call(0.4, true);
        const taskId = String(created?.taskId);
        for (;;) {
          const task = await rpc('tasks/get', { taskId }, taskId);
          if (task?.status !== 'working') return task;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      },
    },
  ].map((path) => ({ ...path, latencies: [] as number[], cpu: {} as CpuSample }));
  const sample = cpuMeter({ temporal: stack.serverPids.temporal, ferretdb: stack.serverPids.ferretdb });
  for (const path of paths) for (let i = 0; i < 5; i++) await path.run();
  for (let round = 0; round < ROUNDS; round++) {
    for (const path of round % 2 === 0 ? paths : [...paths].reverse()) {
      const before = sample();
      for (let i = 0; i < CALLS; i++) {
        const started = performance.now();
        await path.run();
        path.latencies.push(performance.now() - started);
      }
      addSpent(path.cpu, before, sample());
    }
  }
  const calls = ROUNDS * CALLS;
  const perCall = (cpu: CpuSample) => Object.values(cpu).reduce((a, b) => a + b, 0) / calls;
  const base = perCall(paths[0]!.cpu);
  for (const path of paths) {
    const sorted = [...path.latencies].sort((a, b) => a - b);
    const parts = Object.entries(path.cpu).map(([name, ms]) => `${name} ${(ms / calls).toFixed(2)}`).join(', ');
    console.log(`${path.name.padEnd(12)} p50 ${percentile(sorted, 50).toFixed(1)} ms  p99 ${percentile(sorted, 99).toFixed(1)} ms  CPU ${perCall(path.cpu).toFixed(2)} ms/call (${parts})  ${(perCall(path.cpu) / base).toFixed(1)}× relayed  (${calls} calls)`);
  }
} finally {
  await stack.stop();
  await upstream.close();
}
