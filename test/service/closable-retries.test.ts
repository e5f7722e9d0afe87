// A Temporal client closed while one of its calls waits for a retry (Temporal went away first, as
// it does on npm start's Ctrl-C, which stops the dev server at the same moment): the call fails,
// and nothing throws from the retry's timer to take the process down ("Channel has been shut down").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { openTemporal } from '../../service/services';
import { startTemporalDevServer } from '../../stack/servers/temporal-dev-server';

test("a call waiting for its retry when the connection closes fails as cancelled; the process lives on", async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'closable-retries-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const server = await startTemporalDevServer({ dataDir, headless: true, log: createLogger('test-retries', 'error') });
  const client = await openTemporal(server.address, 'default');
  const uncaught: Error[] = [];
  const record = (err: Error) => uncaught.push(err);
  process.on('uncaughtException', record);
  t.teardown(() => process.off('uncaughtException', record));
  t.truthy(await client.connection.workflowService.getSystemInfo({}));
  await server.stop();
  const query = client.workflow.getHandle('connector:none').query('route').then(() => 'answered', (err: Error) => err);
  // Retries fall due at about 0.17, 0.46 and 0.95 s: one is pending now.
  await new Promise((resolve) => setTimeout(resolve, 700));
  await client.connection.close();
  const outcome = await query;
  t.true(outcome instanceof Error, 'the query failed');
  await new Promise((resolve) => setTimeout(resolve, 2_000)); // past the retries that were due
  t.deepEqual(uncaught.map((e) => e.message), []);
});
