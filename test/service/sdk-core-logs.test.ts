// The Temporal SDK's Rust core logs on its own threads. Unless the runtime forwards those lines,
// the core prints them straight to stderr as coloured text, past the service's logger: a process
// started with LOG_FORMAT=json then writes lines that are not JSON (and are not redacted). Here
// the dev server goes away under a polling worker, which makes the core warn, and every line the
// process wrote must be one JSON object, the core's warnings among them.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { startTemporalDevServer } from '../../stack/servers/temporal-dev-server';
import { eventually } from '../helpers/test-stack';

const WORKER = new URL('../fixtures/sdk-runtime-worker.ts', import.meta.url).pathname;

test('with the dev server gone from under a polling worker, the core warns through the service logger: every line is JSON', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'sdk-core-logs-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const server = await startTemporalDevServer({ dataDir, headless: true, log: createLogger('sdk-core-logs-test', 'warn') });
  t.teardown(() => server.stop());
  const child = spawn(process.execPath, ['--import=tsx', WORKER], { env: { ...process.env, TEMPORAL_ADDRESS: server.address }, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => child.kill('SIGKILL'));
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const lines = () => output.split('\n').filter(Boolean);
  await eventually(async () => (lines().some((l) => l.includes('"msg":"polling"')) ? true : undefined), 60_000, 'the worker polling');

  await server.stop();
  const coreLine = (l: string) => l.includes('"component":"temporal-sdk"') && l.includes('"sdkComponent":"core"');
  const rawLine = (l: string) => !l.startsWith('{');
  await eventually(async () => (lines().some((l) => coreLine(l) || rawLine(l)) ? true : undefined), 60_000, 'a line from the core');
  await new Promise((resolve) => setTimeout(resolve, 1_000));

  const notJson = lines().filter((line) => { try { JSON.parse(line); return false; } catch { return true; } });
  t.deepEqual(notJson, [], 'every line the process wrote is JSON');
  const core = lines().filter(coreLine).map((l) => JSON.parse(l) as { level: number; msg: string });
  t.true(core.length > 0, 'the core said something about the server going away');
  t.true(core.every((l) => l.level >= 40), `the core's lines are warnings or worse: ${JSON.stringify(core.map((l) => l.msg))}`);
});
