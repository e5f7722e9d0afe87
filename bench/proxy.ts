// Proxy benchmark (npm run bench:proxy): MCP tools/call against one real MCP server (SDK,
// own process), directly, through our proxy (createMcpProxy, own process, static routes) and
// through nginx (one worker) adding the same Authorization header. Rounds are interleaved so
// that drift on the machine hits every path alike. Traffic stays on 127.0.0.1.
//
// Env: BENCH_ROUNDS (5), BENCH_REQUESTS per round (4000), BENCH_SEQUENTIAL per round (1000),
// BENCH_SSE_EVENTS per round (200), BENCH_PROXY_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p"),
// BENCH_AUDIT=1 (a second proxy, "audit", with the per-call audit on: bench/proxy/audit.ts).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Pool } from 'undici';
import { startChild, type Child } from './proxy/child';
import { cpuMs, withChildren } from './proxy/cpu-time';
import { mcpHeaders, percentile, runRound, type Target } from './proxy/load';
import { findOrInstallNginx, startNginx } from './proxy/nginx';
import { measureSse, startSseSource } from './proxy/sse-latency';
import { AUDIT_ON, startAuditedProxy, type AuditedProxy } from './proxy/audit';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 1000);
const SSE_EVENTS = Number(process.env.BENCH_SSE_EVENTS ?? 200);
const CONCURRENCY = 32;
const TOKEN = 'bench-token';

interface Stats { latencies: number[]; ms: number; requests: number; bad: number; cpuMs: number }

interface Servers {
  upstream: number;
  proxy: { port: number; pid: number };
  nginx: { port: number; pids: number[] } | null;
  audit: AuditedProxy | null;
}

async function main(): Promise<void> {
  const stops: (() => Promise<void>)[] = [];
  try {
    const nginxBinary = findOrInstallNginx();
    if (!nginxBinary) console.log('nginx not found and not root: the nginx comparison is skipped');
    const upstream = await track(stops, startChild('./mcp-upstream.ts', { BENCH_TOKEN: TOKEN }));
    const sse = await startSseSource();
    stops.push(() => sse.close());
    const routes = {
      bench: { kind: 'connected', target: `http://127.0.0.1:${upstream.port}/mcp`, token: TOKEN },
      sse: { kind: 'connected', target: `http://127.0.0.1:${sse.port}/sse` },
    };
    const proxyArgs = (process.env.BENCH_PROXY_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const proxy = await track(stops, startChild('./proxy-server.ts', { BENCH_ROUTES: JSON.stringify(routes) }, proxyArgs));
    const nginx = nginxBinary
      ? await track(stops, startNginx(nginxBinary, { '/mcp': { port: upstream.port, path: '/mcp' }, '/sse': { port: sse.port, path: '/sse' } }, TOKEN))
      : null;

    const session = await openSession(`http://127.0.0.1:${upstream.port}/mcp`);
    const audit = AUDIT_ON ? await track(stops, startAuditedProxy(routes, proxyArgs)) : null;
    const servers = { upstream: upstream.port, proxy, nginx: nginx && { port: nginx.port, pids: withChildren(nginx.pid) }, audit };
    const targets = buildTargets(session, servers, CONCURRENCY);
    stops.push(async () => void (await Promise.all(targets.map((t) => t.pool.close()))));

    console.log(`MCP tools/call, ${CONCURRENCY} connections, ${ROUNDS} interleaved rounds of ${REQUESTS} requests per path`);
    for (const target of targets) await runRound(target, 500, CONCURRENCY); // warm-up: JIT, pools
    const databaseCpu = audit ? cpuMs([audit.databasePid]) : 0;
    const loaded = await interleave(targets, ROUNDS, (t) => runRound(t, REQUESTS, CONCURRENCY));
    printLoad(loaded, true);
    if (audit) {
      const written = await audit.written();
      const perCall = ((cpuMs([audit.databasePid]) - databaseCpu) * 1000) / loaded.get('audit')!.requests;
      console.log(`  audit: ${written} calls written of ${loaded.get('audit')!.requests + 500} sent (the rest dropped by the full queue); FerretDB CPU ${perCall.toFixed(0)} µs/call`);
    }

    console.log(`\nMCP tools/call, 1 connection, sequential, ${ROUNDS} interleaved rounds of ${SEQUENTIAL} requests per path`);
    const sequentialTargets = buildTargets(session, servers, 1);
    stops.push(async () => void (await Promise.all(sequentialTargets.map((t) => t.pool.close()))));
    const sequential = await interleave(sequentialTargets, ROUNDS, (t) => runRound(t, SEQUENTIAL, 1));
    printLoad(sequential, false);

    console.log(`\nSSE: time from the upstream writing an event to the client reading it (${SSE_EVENTS} events, 5 ms apart, per round)`);
    const sseTargets = sseTargetsOf(sse.port, proxy.port, nginx?.port);
    stops.push(async () => void (await Promise.all(sseTargets.map((t) => t.pool.close()))));
    const sseLatencies = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of rotate(sseTargets, round)) {
        const list = sseLatencies.get(t.name) ?? [];
        list.push(...(await measureSse(t.pool, t.path, {}, SSE_EVENTS, 5)));
        sseLatencies.set(t.name, list);
      }
    }
    printSse(sseLatencies);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

async function track<T extends Pick<Child, 'stop'>>(stops: (() => Promise<void>)[], starting: Promise<T>): Promise<T> {
  const started = await starting;
  stops.push(() => started.stop());
  return started;
}

async function openSession(url: string): Promise<{ sessionId: string; protocolVersion: string }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  const session = { sessionId: transport.sessionId!, protocolVersion: transport.protocolVersion! };
  await client.close(); // ends only the client's GET stream; the session stays open upstream
  return session;
}

function buildTargets(session: { sessionId: string; protocolVersion: string }, servers: Servers, connections: number): Target[] {
  const headers = mcpHeaders(session.sessionId, session.protocolVersion);
  const pool = (port: number) => new Pool(`http://127.0.0.1:${port}`, { connections, pipelining: 1 });
  const targets: Target[] = [
    { name: 'direct', pool: pool(servers.upstream), path: '/mcp', headers: { ...headers, authorization: `Bearer ${TOKEN}` } },
    { name: 'proxy', pool: pool(servers.proxy.port), path: '/api/v1/connectors/bench/mcp', headers, cpuPids: [servers.proxy.pid] },
  ];
  if (servers.nginx) targets.push({ name: 'nginx', pool: pool(servers.nginx.port), path: '/mcp', headers, cpuPids: servers.nginx.pids });
  if (servers.audit) targets.push({ name: 'audit', pool: pool(servers.audit.proxy.port), path: '/api/v1/connectors/bench/mcp', headers, cpuPids: [servers.audit.proxy.pid] });
  return targets;
}

function sseTargetsOf(source: number, proxy: number, nginx: number | undefined) {
  const pool = (port: number) => new Pool(`http://127.0.0.1:${port}`, { connections: 1 });
  const targets = [
    { name: 'direct', pool: pool(source), path: '/sse' },
    { name: 'proxy', pool: pool(proxy), path: '/api/v1/connectors/sse/mcp' },
  ];
  if (nginx) targets.push({ name: 'nginx', pool: pool(nginx), path: '/sse' });
  return targets;
}

async function interleave(targets: Target[], rounds: number, run: (t: Target) => ReturnType<typeof runRound>): Promise<Map<string, Stats>> {
  const stats = new Map<string, Stats>(targets.map((t) => [t.name, { latencies: [], ms: 0, requests: 0, bad: 0, cpuMs: 0 }]));
  for (let round = 0; round < rounds; round++) {
    for (const target of rotate(targets, round)) {
      const cpuBefore = cpuMs(target.cpuPids ?? []);
      const result = await run(target);
      const s = stats.get(target.name)!;
      s.cpuMs += cpuMs(target.cpuPids ?? []) - cpuBefore;
      s.latencies.push(...result.latenciesMs);
      s.ms += result.elapsedMs;
      s.requests += result.latenciesMs.length;
      s.bad += result.bad;
    }
  }
  return stats;
}

const rotate = <T>(list: T[], by: number): T[] => list.map((_, i) => list[(i + by) % list.length]!);

function printLoad(stats: Map<string, Stats>, withRatios: boolean): void {
  const rows = [...stats].map(([name, s]) => {
    const sorted = [...s.latencies].sort((a, b) => a - b);
    const cpu = name === 'direct' ? '' : `   middle CPU ${((s.cpuMs * 1000) / s.requests).toFixed(0)} µs/req`;
    return { name, rps: (s.requests / s.ms) * 1000, p50: percentile(sorted, 50), p99: percentile(sorted, 99), bad: s.bad, requests: s.requests, cpu };
  });
  for (const r of rows) {
    console.log(`  ${r.name.padEnd(7)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(3)} ms   p99 ${r.p99.toFixed(3)} ms   non-2xx/bad ${r.bad} of ${r.requests}${r.cpu}`);
  }
  const by = (name: string) => rows.find((r) => r.name === name);
  const direct = by('direct')!;
  const proxy = by('proxy')!;
  const nginx = by('nginx');
  console.log(`  proxy p50 added latency vs direct: ${(proxy.p50 - direct.p50).toFixed(3)} ms${withRatios ? '' : ' (target < 0.3 ms)'}`);
  if (nginx) console.log(`  nginx p50 added latency vs direct: ${(nginx.p50 - direct.p50).toFixed(3)} ms`);
  if (withRatios && nginx) console.log(`  proxy/nginx throughput: ${(proxy.rps / nginx.rps).toFixed(3)} (target >= 0.8)`);
  if (withRatios) console.log(`  proxy/direct throughput: ${(proxy.rps / direct.rps).toFixed(3)}`);
  const audit = by('audit');
  if (audit) {
    console.log(`  audit p50 added latency vs direct: ${(audit.p50 - direct.p50).toFixed(3)} ms, p99: ${(audit.p99 - direct.p99).toFixed(3)} ms (proxy without audit: ${(proxy.p99 - direct.p99).toFixed(3)} ms)`);
    if (withRatios && nginx) console.log(`  audit/nginx throughput: ${(audit.rps / nginx.rps).toFixed(3)} (target >= 0.8)`);
    if (withRatios) console.log(`  audit/proxy throughput: ${(audit.rps / proxy.rps).toFixed(3)}`);
  }
}

function printSse(latencies: Map<string, number[]>): void {
  for (const [name, list] of latencies) {
    const sorted = [...list].sort((a, b) => a - b);
    console.log(`  ${name.padEnd(7)} events ${String(list.length).padStart(5)}   p50 ${percentile(sorted, 50).toFixed(3)} ms   p99 ${percentile(sorted, 99).toFixed(3)} ms   max ${sorted.at(-1)!.toFixed(3)} ms`);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
