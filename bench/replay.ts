// Replay benchmark (npm run bench:replay): what a connector's age costs the worker each time its
// workflow is not in the cache. A worker with more connectors than its cache holds replays the
// whole history of a connector's current run for each refresh, and every history once after a
// restart; a run grows by about six events a refresh until it continues as new
// (CONNECTOR__HISTORY_LIMIT, or the server's own suggestion). bench:scale's connectors are minutes
// old; this bench ages one.
//
// One OAuth connector of the embedded stack (its own process tree, as `npm start` runs it, on a
// Temporal dev server of the bench's own so that the bench can read the history) renews 1-second
// tokens against oidc-provider, with no floor between renewals, until its run holds
// BENCH_REPLAY_EVENTS events (4,000: under the dev server's suggestion to continue as new, 4,096).
// Then the stack stops and this process replays prefixes of that history, as the worker would
// replay a connector of that age, BENCH_REPLAY_ROUNDS times each, interleaved: CPU per replay
// (every thread of this process: the SDK's core, the workflow thread, the main thread), and the
// Temporal server's CPU to serve the whole history once. The shortest prefix is a run's first
// workflow task: what a continue-as-new costs the worker for the run it starts. From those, what
// an average cold renewal replays under a few history limits (a run's age is spread evenly between
// none and the limit). The workflow code runs in this process's main thread here (the SDK's
// replayer); the service's worker runs it in a workflow thread and adds the messages between
// the two. BENCH_REPLAY_HISTORY=file keeps the aged history there, and a later run that finds the
// file replays it without aging a connector again (nor starting a server): the same history before
// and after a change to the workflow code.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { freePort } from '../service/free-port';
import { createLogger } from '../platform/logger';
import { startTemporalDevServer } from '../stack/servers/temporal-dev-server';
import { startStackProcess } from '../test/helpers/for-bench';
import { connectorWorkflowId } from '../workflows/messages';
import { cpuMs } from './proxy/cpu-time';
import { percentile } from './lifecycle/rounds';
import { connectOAuth, startOAuthWorld } from './scale/oauth-world';
import { cutHistory, type HistoryCut } from './replay/history-cuts';

const HistoryProto = proto.temporal.api.history.v1.History;
type History = proto.temporal.api.history.v1.IHistory;

const EVENTS = Number(process.env.BENCH_REPLAY_EVENTS ?? 4_000);
const ROUNDS = Number(process.env.BENCH_REPLAY_ROUNDS ?? 5);
const HISTORY_FILE = process.env.BENCH_REPLAY_HISTORY;
const CUTS = [1, 100, 250, 500, 1_000, 2_000, 3_000, 4_000, 6_000, 10_000].filter((n) => n < EVENTS).concat(EVENTS);

/** Grows one connector's history to EVENTS events; answers it, the connector's workflow id and how long it took. */
async function ageOneConnector(dataDir: string, temporalAddress: string, client: Client) {
  const world = await startOAuthWorld(1);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const service = await startStackProcess({
    entry: process.env.BENCH_ENTRY ?? 'dist/embedded.mjs',
    logFile: path.join(dataDir, 'service.log'),
    env: {
      DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', BASE_URL: baseUrl, LOG_LEVEL: 'warn', TEMPORAL_ADDRESS: temporalAddress,
      CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'false', CONNECTOR__HISTORY_LIMIT: '50000', CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS: '0',
    },
  });
  try {
    const id = await connectOAuth(service.api, port, world, {}, baseUrl);
    const handle = client.workflow.getHandle(connectorWorkflowId(id));
    const { runId } = await handle.describe();
    const started = Date.now();
    for (let shown = 0; ;) {
      await new Promise((r) => setTimeout(r, 5_000));
      const info = await handle.describe();
      if (info.runId !== runId) throw new Error(`the run continued as new at about ${shown} events, before ${EVENTS}: lower BENCH_REPLAY_EVENTS`);
      if (info.historyLength >= EVENTS) break;
      if (info.historyLength - shown >= 500) console.log(`  aging: ${(shown = info.historyLength)} events after ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    const history = await client.workflow.getHandle(connectorWorkflowId(id), runId).fetchHistory();
    return { history, workflowId: connectorWorkflowId(id), agingSeconds: (Date.now() - started) / 1000 };
  } finally {
    await service.stop();
    await world.close();
  }
}

/** The history from BENCH_REPLAY_HISTORY, or a connector aged now (and kept there when it names a file). */
async function agedHistory(): Promise<{ history: History; workflowId: string; served: number | null }> {
  if (HISTORY_FILE && fs.existsSync(HISTORY_FILE)) {
    const kept = JSON.parse(fs.readFileSync(HISTORY_FILE, 'utf8')) as { workflowId: string; history: string };
    console.log(`bench:replay: the history kept in ${HISTORY_FILE}; ${os.cpus().length} cores`);
    return { workflowId: kept.workflowId, history: HistoryProto.decode(Buffer.from(kept.history, 'base64')), served: null };
  }
  console.log(`bench:replay: one OAuth connector renewing 1 s tokens until its run holds ${EVENTS} events; ${os.cpus().length} cores`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-replay-'));
  const server = await startTemporalDevServer({ dataDir: path.join(dataDir, 'temporal'), headless: true, log: createLogger('bench-replay', 'warn') });
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection });
    const { history, workflowId, agingSeconds } = await ageOneConnector(dataDir, server.address, client);
    console.log(`aged in ${agingSeconds.toFixed(0)} s`);
    if (HISTORY_FILE) fs.writeFileSync(HISTORY_FILE, JSON.stringify({ workflowId, history: Buffer.from(HistoryProto.encode(history).finish()).toString('base64') }));
    return { history, workflowId, served: await serveCpu(client, workflowId, server.pid) };
  } finally {
    await connection.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** CPU (ms, all threads of this process) of each replay of each cut, interleaved over the rounds. */
async function replayCpu(cuts: HistoryCut[], workflowId: string): Promise<Map<number, number[]>> {
  const workflowBundle = { codePath: fileURLToPath(new URL('../dist/workflow-bundle.js', import.meta.url)) }; // the worker's own, built by npm run bench:replay
  const order = [cuts[0]!, cuts[0]!, ...Array.from({ length: ROUNDS }, () => cuts).flat()]; // two warm-up replays first
  const cpu = new Map<number, number[]>(cuts.map((c) => [c.events, []]));
  let startedAt = 0;
  const feed = (async function* () {
    for (const cut of order) {
      startedAt = cpuNow();
      yield { workflowId, history: cut.history };
    }
  })();
  let i = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle, replayName: 'bench-replay' }, feed)) {
    if (result.error) throw new Error(`replay of ${order[i]!.events} events failed: ${result.error.message}`);
    if (i >= 2) cpu.get(order[i]!.events)!.push(cpuNow() - startedAt);
    i += 1;
  }
  return cpu;
}

/** Replay CPU at `events`, interpolated between the measured prefixes (null past the longest). */
function cpuAt(events: number, points: { events: number; ms: number }[]): number | null {
  const above = points.findIndex((p) => p.events >= events);
  if (above < 0) return null;
  if (above === 0) return points[0]!.ms;
  const [a, b] = [points[above - 1]!, points[above]!];
  return a.ms + ((b.ms - a.ms) * (events - a.events)) / (b.events - a.events);
}

/** What an average cold renewal replays when runs continue as new at a few history limits. */
function printProjection(cuts: HistoryCut[], cpu: Map<number, number[]>): void {
  const points = cuts.map((c) => ({ events: c.events, ms: percentile(cpu.get(c.events)!, 50) }));
  const longest = cuts.at(-1)!;
  const eventsPerRenewal = longest.events / Math.max(1, longest.renewals);
  const newRun = points[0]!.ms;
  console.log(`\nan average cold renewal, by history limit (a new run's first task: ${newRun.toFixed(1)} ms, shared by the renewals of its run):`);
  for (const limit of [100, 200, 500, 1_000, 4_096, 10_000]) {
    const replay = cpuAt(limit / 2, points);
    if (replay === null) continue;
    const perRun = newRun / Math.max(1, limit / eventsPerRenewal);
    console.log(`  CONNECTOR__HISTORY_LIMIT=${limit}: replays ${(limit / 2).toFixed(0)} events, ${(replay + perRun).toFixed(1)} ms`);
  }
}

const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

/** The Temporal server's CPU (ms) to send the whole history once, over a few fetches. */
async function serveCpu(client: Client, workflowId: string, serverPid: number): Promise<number> {
  const fetches = 10;
  const before = cpuMs([serverPid]);
  for (let i = 0; i < fetches; i += 1) await client.workflow.getHandle(workflowId).fetchHistory();
  return (cpuMs([serverPid]) - before) / fetches;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') }); // the replay worker's start and stop lines are noise here
  const { history, workflowId, served } = await agedHistory();
  const cuts = cutHistory(history, CUTS);
  const last = cuts.at(-1)!;
  console.log(`the history: ${last.events} events, ${last.tasks} workflow tasks, ${last.renewals} renewals (${(last.events / Math.max(1, last.renewals)).toFixed(1)} events a renewal)`);
  const cpu = await replayCpu(cuts, workflowId);
  const base = percentile(cpu.get(cuts[0]!.events)!, 50);
  console.log(`\nCPU per replay, median of ${ROUNDS} (ms, this process's threads):`);
  console.log('  events  tasks  renewals  replay ms  per renewal  × shortest');
  for (const cut of cuts) {
    const p50 = percentile(cpu.get(cut.events)!, 50);
    const perRenewal = cut.renewals ? (p50 / cut.renewals).toFixed(2) : '-';
    console.log(`  ${String(cut.events).padStart(6)}  ${String(cut.tasks).padStart(5)}  ${String(cut.renewals).padStart(8)}  ${p50.toFixed(1).padStart(9)}  ${perRenewal.padStart(11)}  ${(p50 / base).toFixed(2).padStart(10)}`);
  }
  printProjection(cuts, cpu);
  if (served !== null) console.log(`Temporal server, serving the whole ${history.events?.length ?? 0}-event history once: ${served.toFixed(1)} ms CPU`);
}

await main();
