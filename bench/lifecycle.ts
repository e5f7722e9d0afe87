// Lifecycle benchmark (npm run bench:lifecycle): connectors created and token-connected through
// the REST API (embedded stack: Temporal dev server, FerretDB, worker, API in this process; the
// MCP server in its own process), against a bare Temporal loop on the same dev server (start a
// minimal workflow, send it one Update; its own worker with the service's worker options).
// A third loop, the shape, does what create + connect ask of Temporal (an Update-with-Start, then
// an Update) and nothing else. A fourth, the floor, is the shape with one regular activity that
// does nothing before each answer, as the service's projection writes are (they stay regular
// activities: workflows/activity-proxies.ts): the most the service's own design allows. The
// TARGET lines compare the connectors with the shape (the issue's target) and say how far the floor
// itself reaches. Rounds are interleaved,
// and rotate which loop goes first, so that drift on the machine hits all alike. CPU per item is
// read from /proc for every process taking part. Traffic stays on 127.0.0.1.
//
// Issue 42's target 3 (bench/targets.ts) is printed last: create + connect against the floor at
// 50 concurrent, connect one at a time, and a new token reaching every proxy (lifecycle/token-reach.ts).
//
// Env: BENCH_ROUNDS (3), BENCH_CONNECTORS per round (50), BENCH_CONCURRENCY ("10,50"),
// BENCH_ONE_AT_A_TIME (20: connectors created and connected one at a time after the rounds; 0: none),
// BENCH_TOKEN_SWAPS (5: new tokens sent to a connector called through two proxies; 0: none),
// BENCH_TEMPORAL_ADDRESS (host:port of a Temporal server to use instead of the embedded dev
// server, e.g. one started with other dynamic config, to compare server settings),
// BENCH_CALLER_AUTH (1: callers authenticated, every connector created with one API key, as a
// platform that is one caller; the per-owner rules of calls in workflow tasks then apply).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { Pool } from 'undici';
import { sha256Hex } from '../callers/api-keys';
import { createLogger } from '../platform/logger';
import { startEmbeddedStack } from '../stack/embedded-stack';
import { freePort } from '../service/free-port';
import { bareWorkflow, setValueRecordedUpdate, setValueUpdate } from './lifecycle/bare-workflow';
import { startBareWorker } from './lifecycle/bare-worker';
import { percentile, runRound, throughput, type ItemTiming, type RoundResult } from './lifecycle/rounds';
import { startUpstreamProcess } from './lifecycle/upstream-process';
import { addSpent, cpuMeter, type CpuSample } from './lifecycle/cpu-meter';
import { measureTokenReach, type TokenReach } from './lifecycle/token-reach';
import { benchTargetLines, type Figure } from './targets';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const COUNT = Number(process.env.BENCH_CONNECTORS ?? 50);
const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? '10,50').split(',').map(Number);
const TOKEN = 'bench-lifecycle-token';
/** One caller for every connector when BENCH_CALLER_AUTH=1. */
const API_KEY = process.env.BENCH_CALLER_AUTH === '1' ? `bench-platform-${randomUUID()}` : null;
const TARGET_RATIO = 0.6;
const CONNECT_P50_MS = 1_000;
const CONNECT_P99_MS = 2_000;
const ONE_AT_A_TIME = Number(process.env.BENCH_ONE_AT_A_TIME ?? 20);
const TOKEN_SWAPS = Number(process.env.BENCH_TOKEN_SWAPS ?? 5);
/** The concurrency target 42.3a is about. */
const ISSUE_CONCURRENCY = 50;

type Loop = (index: number) => Promise<ItemTiming>;

async function main(): Promise<void> {
  const stops: (() => Promise<void>)[] = [];
  const firstErrors = new Map<string, string>();
  try {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-bench-'));
    const port = await freePort();
    const logFile = path.join(dataDir, 'service.log');
    // Given, not generated under DATA_DIR: the proxy role of the token-reach part opens the same secrets.
    const encryptionKey = randomBytes(32).toString('hex');
    const env = {
      CONNECTOR__ENCRYPTION_KEY: encryptionKey, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'warn',
      ...(process.env.BENCH_TEMPORAL_ADDRESS ? { TEMPORAL_ADDRESS: process.env.BENCH_TEMPORAL_ADDRESS } : {}),
      // With callers authenticated private networks are blocked by default (the bench's MCP server is on
      // loopback), and one owner's quota and request rate would stop the rounds.
      ...(API_KEY ? { CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'platform', sha256: sha256Hex(API_KEY) }]), CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8',
        CONNECTOR__MAX_CONNECTORS_PER_OWNER: '100000', CONNECTOR__RATE_LIMIT_PER_OWNER: 'off' } : {}),
    };
    const stack = await startEmbeddedStack({ env, logger: createLogger('bench', 'warn', logFile), headless: true, temporalPort: 0, mongoPort: 0 });
    stops.push(() => stack.stop());
    const upstream = await startUpstreamProcess(TOKEN);
    stops.push(() => upstream.stop());

    const sampleCpu = cpuMeter({ temporal: stack.serverPids.temporal, ferretdb: stack.serverPids.ferretdb, upstream: upstream.pid });

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
      const headers = { 'content-type': 'application/json', ...(API_KEY ? { authorization: `Bearer ${API_KEY}` } : {}) };
      const res = await http.request({ method: 'POST', path: urlPath, headers, body: JSON.stringify(body) });
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
    // An Update-with-Start that the caller waits for, then a second Update, both `update`.
    const twoUpdates = (name: string, update: typeof setValueUpdate): Loop => async (index) => {
      const starting = performance.now();
      const startWorkflowOperation = new WithStartWorkflowOperation(bareWorkflow, {
        workflowId: `${name}-${randomUUID()}`, taskQueue: bareQueue, workflowIdConflictPolicy: 'USE_EXISTING',
      });
      await temporal.workflow.executeUpdateWithStart(update, { args: [{ value: 'created' }], startWorkflowOperation });
      const started = performance.now();
      const handle = await startWorkflowOperation.workflowHandle();
      const value = await handle.executeUpdate(update, { args: [{ value: String(index) }] });
      const stepMs = performance.now() - started;
      return value === String(index) ? { stepMs, beforeMs: started - starting, ok: true } : fail(name, `update answered ${value}`);
    };
    // The Temporal shape of create + connect with nothing of the service in it.
    const shape = twoUpdates('shape', setValueUpdate);
    // The shape with the projection writes' Temporal cost: a regular activity before each answer.
    const floor = twoUpdates('floor', setValueRecordedUpdate);
    const loops = { api: connectors, bare, shape, floor } as const;
    type LoopName = keyof typeof loops;
    const names = Object.keys(loops) as LoopName[];

    if (API_KEY) console.log('Callers authenticated: every connector is one API key\'s (one owner)');
    console.log(`Lifecycle: ${COUNT} items per round, ${ROUNDS} interleaved rounds per concurrency; 2 cores shared (${os.loadavg()[0]!.toFixed(1)} load)`);
    console.log('  connectors: POST /api/v1/connectors + POST .../connect (token, probe of a real MCP server) -> connected');
    console.log('  bare:       workflow.start + executeUpdate on a minimal workflow, same dev server, same worker options');
    console.log('  shape:      executeUpdateWithStart + executeUpdate on that workflow: the two round trips of create + connect, nothing else');
    console.log('  floor:      the shape with a regular no-op activity before each answer, as the projection writes are: the design\'s floor\n');
    for (const loop of names) await runRound(10, 5, loops[loop]); // warm-up: JIT, pools, the workflow caches

    const summary: string[] = [];
    /** Items per second of each loop at the issue's concurrency, when the run had it. */
    const atIssueConcurrency = new Map<string, number>();
    for (const concurrency of CONCURRENCIES) {
      const results: Record<LoopName, RoundResult[]> = { api: [], bare: [], shape: [], floor: [] };
      const cpu: Record<LoopName, CpuSample> = { api: {}, bare: {}, shape: {}, floor: {} };
      for (let round = 0; round < ROUNDS; round++) {
        // A different loop goes first in each round.
        const order = names.map((_, i) => names[(i + round) % names.length]!);
        for (const loop of order) {
          const before = sampleCpu();
          results[loop].push(await runRound(COUNT, concurrency, loops[loop]));
          addSpent(cpu[loop], before, sampleCpu());
        }
        const line = names.map((l) => `${l} ${rate(results[l].at(-1)!).toFixed(1)}/s`).join(', ');
        console.log(`  concurrency ${concurrency}, round ${round + 1}: ${line}`);
      }
      const api = describe(results.api);
      const baseline = describe(results.bare);
      const twoSteps = describe(results.shape);
      const durable = describe(results.floor);
      const ratio = api.perSecond / twoSteps.perSecond;
      if (concurrency === ISSUE_CONCURRENCY) for (const [name, d] of [['connectors', api], ['floor', durable]] as const) atIssueConcurrency.set(name, d.perSecond);
      summary.push(
        `concurrency ${concurrency}:`,
        `  connectors (API)   ${api.perSecond.toFixed(1).padStart(6)} /s   connect p50 ${ms(api.p50)} p99 ${ms(api.p99)}   (create p50 ${ms(api.beforeP50)})   failed ${api.failed}`,
        `  bare start+update  ${baseline.perSecond.toFixed(1).padStart(6)} /s   update  p50 ${ms(baseline.p50)} p99 ${ms(baseline.p99)}   (start  p50 ${ms(baseline.beforeP50)})   failed ${baseline.failed}`,
        `  shape (2 steps)    ${twoSteps.perSecond.toFixed(1).padStart(6)} /s   update  p50 ${ms(twoSteps.p50)} p99 ${ms(twoSteps.p99)}   (u-w-s  p50 ${ms(twoSteps.beforeP50)})   failed ${twoSteps.failed}`,
        `  floor (shape + 2 regular activities) ${durable.perSecond.toFixed(1).padStart(6)} /s   update  p50 ${ms(durable.p50)} p99 ${ms(durable.p99)}   (u-w-s  p50 ${ms(durable.beforeP50)})   failed ${durable.failed}`,
        target(`connectors / shape, concurrency ${concurrency}`, ratio, TARGET_RATIO),
        target(`connect p50, concurrency ${concurrency}`, api.p50, CONNECT_P50_MS, 'ms'),
        target(`connect p99, concurrency ${concurrency}`, api.p99, CONNECT_P99_MS, 'ms'),
        `  the floor reaches ${(durable.perSecond / twoSteps.perSecond).toFixed(2)}x of the shape (the most the connectors can while projection writes stay regular activities); connectors reach ${(api.perSecond / durable.perSecond).toFixed(2)}x of the floor`,
        `  the shape reaches ${(twoSteps.perSecond / baseline.perSecond).toFixed(2)}x of the bare loop; connectors ${(api.perSecond / baseline.perSecond).toFixed(2)}x`,
        ...cpuLines(cpu, ROUNDS * COUNT),
      );
    }
    console.log(`\n${summary.join('\n')}`);

    const oneAtATime = ONE_AT_A_TIME > 0 ? describe([await runRound(ONE_AT_A_TIME, 1, connectors)]) : null;
    if (oneAtATime) console.log(`\none at a time (${ONE_AT_A_TIME} connectors): connect p50 ${ms(oneAtATime.p50)} p99 ${ms(oneAtATime.p99)}   (create p50 ${ms(oneAtATime.beforeP50)})   failed ${oneAtATime.failed}`);
    // Its calls are unauthenticated: not measured with BENCH_CALLER_AUTH.
    const reach = TOKEN_SWAPS > 0 && !API_KEY
      ? await measureTokenReach({
          apiPort: stack.port, temporalAddress: stack.temporalAddress, mongoUri: stack.mongoUri, mongoDatabase: stack.config.mongo.database,
          encryptionKey, dataDir, swaps: TOKEN_SWAPS,
        })
      : null;
    if (reach) {
      stops.push(() => reach.stop());
      printReach(reach);
    }
    console.log(`\nissue 42's target 3:`);
    const figures = (name: string, figure: Figure): number | undefined => {
      if (figure === 'items/s') return atIssueConcurrency.get(name);
      if (name === 'connect') return oneAtATime?.failed === 0 ? oneAtATime.p50 : undefined;
      return reach ? Math.max(...reach.swaps.flat().map((s) => s.seconds)) : undefined;
    };
    for (const text of benchTargetLines('lifecycle', figures)) console.log(`  ${text}`);
    for (const [loop, reason] of firstErrors) console.log(`first failure (${loop}): ${reason}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch((err) => console.error('stop failed:', err));
  }
}

function printReach(reach: TokenReach): void {
  console.log(`\na new token through two proxies (seconds from the connect's answer to the first call carrying it; calls carrying the old one after it):`);
  reach.swaps.forEach((swap, i) => console.log(`  swap ${i + 1}: ${swap.map((s) => `${s.proxy} ${s.seconds.toFixed(3)} s (stale after: ${s.staleAfter})`).join(', ')}`));
}

/** A target line: a ratio that must reach `limit`, or a time that must stay within it. */
function target(what: string, value: number, limit: number, unit: 'x' | 'ms' = 'x'): string {
  const pass = unit === 'x' ? value >= limit : value <= limit;
  const shown = unit === 'x' ? `${value.toFixed(2)}x (>= ${limit}x)` : `${value.toFixed(0)} ms (<= ${limit} ms)`;
  return `  TARGET ${what}: ${shown} ${pass ? 'PASS' : 'FAIL'}`;
}

/** CPU per item by process; on cores they all share, the ratio of totals caps the throughput ratio. */
function cpuLines(cpu: Record<string, CpuSample>, items: number): string[] {
  const columns = ['bench', 'temporal', 'ferretdb', 'upstream'] as const;
  if (!Object.keys(cpu.api ?? {}).length) return [];
  const perItem = (sample: CpuSample) => columns.map((c) => (sample[c] ?? 0) / items);
  const total = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const row = (label: string, values: number[]) =>
    `  ${label.padEnd(19)}${[...values, total(values)].map((v) => v.toFixed(1).padStart(10)).join('')}`;
  const [api, bare, shape, floor] = [cpu.api!, cpu.bare!, cpu.shape!, cpu.floor!].map(perItem) as [number[], number[], number[], number[]];
  return [
    `  CPU ms per item      service  Temporal  FerretDB  upstream     total   (service: API, worker, the loops' clients)`,
    row('connectors (API)', api),
    row('bare start+update', bare),
    row('shape (2 steps)', shape),
    row('floor', floor),
    `  CPU bare/API ${(total(bare) / total(api)).toFixed(2)}x, bare/shape ${(total(bare) / total(shape)).toFixed(2)}x, shape/floor ${(total(shape) / total(floor)).toFixed(2)}x, floor/API ${(total(floor) / total(api)).toFixed(2)}x`,
  ];
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
