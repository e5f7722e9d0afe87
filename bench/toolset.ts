// Toolset benchmark (npm run bench:toolset): tools/call through a toolset's MCP endpoint vs the
// same member's own MCP path, both with the SDK v2 client at 2026-07-28 against a real SDK server,
// on the embedded stack with caller authentication on (an API key). Rounds alternate the two
// paths so that drift on the machine hits both alike. Prints, per path, the latency (p50, p99)
// and this process's CPU per call (stack, client and upstream all run here, so the difference
// between the paths is what the toolset adds), and issue 42's target 4 on it (bench/targets.ts).
//
// Env: BENCH_ROUNDS (5), BENCH_CALLS per round and path (300).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { sha256Hex } from '../callers/api-keys';
import { startTestStack, startToolsMcpServer } from '../test/helpers/for-bench';
import { percentile } from './lifecycle/rounds';
import { benchTargetLines } from './targets';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const KEY = 'bench-toolset-key-9a8b7c';
const auth = { authorization: `Bearer ${KEY}` };

const upstream = await startToolsMcpServer({ name: 'bench', tokens: { 'bench-token': ['echo'] } });
const stack = await startTestStack({
  CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'bench', sha256: sha256Hex(KEY) }]),
  CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8', CONNECTOR__RATE_LIMIT_PER_OWNER: 'off', LOG_LEVEL: 'warn',
});
try {
  const { body: connector } = await stack.api('POST', '/api/v1/connectors', { url: upstream.url, metadata: { name: 'bench' } }, auth);
  await stack.api('POST', `/api/v1/connectors/${connector.id}/connect`, { access_token: 'bench-token' }, auth);
  const { body: toolset } = await stack.api('POST', '/api/v1/toolsets', { name: 'bench', members: [{ connector_id: connector.id }] }, auth);
  const open = async (url: string) => {
    const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth } }));
    return client;
  };
  const paths = [
    { name: 'member path', client: await open(connector.mcp_url), tool: 'echo', latencies: [] as number[], cpuUs: 0 },
    { name: 'toolset', client: await open(toolset.mcp_url), tool: 'bench__echo', latencies: [] as number[], cpuUs: 0 },
  ];
  for (const path of paths) for (let i = 0; i < 50; i++) await path.client.callTool({ name: path.tool, arguments: { text: 'warm' } });
  for (let round = 0; round < ROUNDS; round++) {
    for (const path of round % 2 === 0 ? paths : [...paths].reverse()) {
      const cpu = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) {
        const started = performance.now();
        await path.client.callTool({ name: path.tool, arguments: { text: 'x' } });
        path.latencies.push(performance.now() - started);
      }
      const used = process.cpuUsage(cpu);
      path.cpuUs += used.user + used.system;
    }
  }
  const calls = ROUNDS * CALLS;
  for (const path of paths) {
    const sorted = [...path.latencies].sort((a, b) => a - b);
    console.log(`${path.name.padEnd(12)} p50 ${percentile(sorted, 50).toFixed(2)} ms  p99 ${percentile(sorted, 99).toFixed(2)} ms  CPU ${(path.cpuUs / calls / 1000).toFixed(3)} ms/call  (${calls} calls)`);
    await path.client.close();
  }
  const cpuPerCall = (name: string) => { const path = paths.find((p) => p.name === name); return path && path.cpuUs / calls; };
  for (const text of benchTargetLines('toolset', (name, figure) => (figure === 'CPU µs/call' ? cpuPerCall(name) : undefined))) console.log(text);
} finally {
  await stack.stop();
  await upstream.close();
}
