// Lifecycle benchmark (npm run bench:lifecycle): connectors created and token-connected through
// the REST API (embedded stack: Temporal dev server, FerretDB, worker, API in this process; the
// MCP server in its own process), against a bare Temporal loop on the same dev server (start a
// minimal workflow, send it one Update; its own worker with the service's worker options).
// Rounds are interleaved, and alternate which loop goes first, so that drift on the machine hits
// both alike. Traffic stays on 127.0.0.1.
//
// Env: BENCH_ROUNDS (3), BENCH_CONNECTORS per round (50), BENCH_CONCURRENCY ("10,50"),
// BENCH_TEMPORAL_ADDRESS (host:port of a Temporal server to use instead of the embedded dev
// server, e.g. one started with other dynamic config, to compare server settings).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { Pool } from 'undici';
import { createLogger } from '../core/logger';
import { startEmbeddedStack } from '../stack/embedded-stack';
import { freePort } from '../stack/servers/free-port';
import { bareWorkflow, setValueUpdate } from './lifecycle/bare-workflow';
import { startBareWorker } from './lifecycle/bare-worker';
import { percentile, runRound, throughput, type ItemTiming, type RoundResult } from './lifecycle/rounds';
import { startUpstreamProcess } from './lifecycle/upstream-process';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const COUNT = Number(process.env.BENCH_CONNECTORS ?? 50);
const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? '10,50').split(',').map(Number);
const TOKEN = 'bench-lifecycle-token';
const TARGET_RATIO = 0.6;

type Loop = (index: number) => Promise<ItemTiming>;

async function main(): Promise<void> {
  const stops: (() => Promise<void>)[] = [];
  const firstErrors = new Map<string, string>();
  try {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-bench-'));
    const port = await freePort();
    const logFile = path.join(dataDir, 'service.log');
    const env = {
      DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'warn',
      ...(process.env.BENCH_TEMPORAL_ADDRESS ? { TEMPORAL_ADDRESS: process.env.BENCH_TEMPORAL_ADDRESS } : {}),
    };
    const stack = await startEmbeddedStack({ env, logger: createLogger('bench', 'warn', logFile), headless: true, temporalPort: 0, mongoPort: 0 });
    stops.push(() => stack.stop());
    const upstream = await startUpstreamProcess(TOKEN);
    stops.push(() => upstream.stop());

    const bareQueue = `bench-bare-${randomUUID()}`;
    const bareWorker = await startBareWorker(stack.temporalAddress, stack.config.temporal.namespace, bareQueue);
    stops.push(() => bareWorker.stop());
    // A client of its own, as the API has its own: the loops share the dev server, not a channel.
    const connection = await Connection.connect({ address: stack.temporalAddress });
    stops.push(() => connection.close());
    const temporal = new Client({ connection, namespace: stack.config.temporal.namespace });

    const maxConcurrency = Math.max(...CONCURRENCIES);
    const http = new Pool(`http://127.0.0.1:${stack.port}`, { connections: maxConcurrency });
    stops.push(() => http.close());
    const post = async (urlPath: string, body: unknown) => {
      const res = await http.request({ method: 'POST', path: urlPath, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.statusCode, body: (await res.body.json()) as { id?: string; state?: string; detail?: string } };
    };

    const fail = (loop: string, reason: string): ItemTiming => {
      if (!firstErrors.has(loop)) firstErrors.set(loop, reason);
      return { stepMs: 0, ok: false };
    };
    const connectors: Loop = async () => {
      const creating = performance.now();
      const created = await post('/api/v1/connectors', { url: upstream.url, metadata: { name: 'bench' } });
      const beforeMs = performance.now() - creating;
      if (created.status !== 201) return fail('api', `create ${created.status} ${created.body.detail ?? ''}`);
      const started = performance.now();
      const connected = await post(`/api/v1/connectors/${created.body.id}/connect`, { access_token: TOKEN });
      const stepMs = performance.now() - started;
      if (connected.status !== 200 || connected.body.state !== 'connected') return fail('api', `connect ${connected.status} ${connected.body.detail ?? ''}`);
      return { stepMs, beforeMs, ok: true };
    };
    const bare: Loop = async (index) => {
      const starting = performance.now();
      const handle = await temporal.workflow.start(bareWorkflow, { workflowId: `bare-${randomUUID()}`, taskQueue: bareQueue });
      const started = performance.now();
      const value = await handle.executeUpdate(setValueUpdate, { args: [{ value: String(index) }] });
      const stepMs = performance.now() - started;
      return value === String(index) ? { stepMs, beforeMs: started - starting, ok: true } : fail('bare', `update answered ${value}`);
    };

    console.log(`Lifecycle: ${COUNT} items per round, ${ROUNDS} interleaved rounds per concurrency; 2 cores shared (${os.loadavg()[0]!.toFixed(1)} load)`);
    console.log('  connectors: POST /api/v1/connectors + POST .../connect (token, probe of a real MCP server) -> connected');
    console.log('  bare:       workflow.start + executeUpdate on a minimal workflow, same dev server, same worker options\n');
    await runRound(10, 5, connectors); // warm-up: JIT, pools, the workflow caches
    await runRound(10, 5, bare);

    const summary: string[] = [];
    for (const concurrency of CONCURRENCIES) {
      const results: Record<'api' | 'bare', RoundResult[]> = { api: [], bare: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const order: ('api' | 'bare')[] = round % 2 === 0 ? ['api', 'bare'] : ['bare', 'api'];
        for (const loop of order) results[loop].push(await runRound(COUNT, concurrency, loop === 'api' ? connectors : bare));
        const line = (['api', 'bare'] as const).map((l) => `${l} ${rate(results[l].at(-1)!).toFixed(1)}/s`).join(', ');
        console.log(`  concurrency ${concurrency}, round ${round + 1}: ${line}`);
      }
      const api = describe(results.api);
      const baseline = describe(results.bare);
      const ratio = api.perSecond / baseline.perSecond;
      summary.push(
        `concurrency ${concurrency}:`,
        `  connectors (API)   ${api.perSecond.toFixed(1).padStart(6)} /s   connect p50 ${ms(api.p50)} p99 ${ms(api.p99)}   (create p50 ${ms(api.beforeP50)})   failed ${api.failed}`,
        `  bare start+update  ${baseline.perSecond.toFixed(1).padStart(6)} /s   update  p50 ${ms(baseline.p50)} p99 ${ms(baseline.p99)}   (start  p50 ${ms(baseline.beforeP50)})   failed ${baseline.failed}`,
        `  ratio ${ratio.toFixed(2)}x of the bare loop (target >= ${TARGET_RATIO}x): ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}`,
      );
    }
    console.log(`\n${summary.join('\n')}`);
    for (const [loop, reason] of firstErrors) console.log(`first failure (${loop}): ${reason}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch((err) => console.error('stop failed:', err));
  }
}

function rate(round: RoundResult): number {
  return throughput([round]);
}

function describe(rounds: RoundResult[]) {
  const ok = rounds.flatMap((r) => r.items.filter((i) => i.ok));
  const steps = ok.map((i) => i.stepMs);
  const all = rounds.reduce((n, r) => n + r.items.length, 0);
  return {
    perSecond: throughput(rounds), p50: percentile(steps, 50), p99: percentile(steps, 99),
    beforeP50: percentile(ok.map((i) => i.beforeMs ?? NaN), 50), failed: all - ok.length,
  };
}

function ms(value: number): string {
  return `${value.toFixed(0).padStart(5)} ms`;
}

await main();
// The SDK's native runtime keeps the event loop alive after its workers stopped.
process.exit(0);
