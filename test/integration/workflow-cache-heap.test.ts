// `npm start` with more connectors than its workflow cache holds: the cache fills to its default
// size inside the heap npm start gives node, and the stack goes on serving. The Temporal SDK
// evaluates the workflow bundle's modules once per cached workflow; while the bundle carried a
// schema library, each cost 1.4 MB and npm start died of a workflow thread out of memory at about
// a hundred connectors (issue 42, found by bench:scale). The compiled stack, run with npm start's
// node flags.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { startNodeFlags } from '../../bench/start-flags';
import { cachedWorkflowsFor } from '../../config/config';
import { freePortBelowEphemeral } from '../../service/free-port';
import { startTokenMcpServer } from '../fixtures/token-mcp-server';
import { inParallel } from '../helpers/in-parallel';
import { valueOf } from '../helpers/prometheus-text';
import { startStackProcess } from '../helpers/stack-process';

const TOKEN = 'cache-heap-token-3c81';
/** npm start's cache: CONNECTOR__WORKER_MEMORY_BUDGET_MB's default. */
const CACHE = cachedWorkflowsFor(64);

test('npm start fills its default workflow cache within its heap and goes on serving', async (t) => {
  const upstream = await startTokenMcpServer({ token: TOKEN });
  t.teardown(() => upstream.close());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-cache-heap-'));
  const port = await freePortBelowEphemeral();
  const env = { DATA_DIR: dataDir, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, MALLOC_ARENA_MAX: '2' };
  const flags = startNodeFlags();
  t.true(flags.some((f) => /^--max-old-space-size=\d+$/.test(f)), flags.join(' '));
  const stack = await startStackProcess({ entry: 'dist/embedded.mjs', env, logFile: path.join(dataDir, 'logs', 'stack.log'), nodeArgs: flags });
  t.teardown(() => stack.stop());

  const states: string[] = [];
  await inParallel(Array.from({ length: CACHE + 40 }, (_, i) => i), 10, async () => {
    const { body } = await stack.api('POST', '/api/v1/connectors', { url: upstream.url });
    states.push((await stack.api('POST', `/api/v1/connectors/${body.id}/connect`, { access_token: TOKEN })).body.state);
  });
  t.is(states.length, CACHE + 40);
  t.deepEqual([...new Set(states)], ['connected']);
  const metrics = await (await fetch(`${stack.baseUrl}/metrics`)).text();
  t.is(valueOf(metrics, 'temporal_sticky_cache_size'), CACHE, 'the cache is full: every workflow it may hold is in the heap');
  t.is(stack.child.exitCode, null);
  t.is((await stack.api('GET', '/readyz')).status, 200);
});
