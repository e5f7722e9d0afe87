// `npm start` killed with SIGKILL (the whole process tree, no handler runs) and started again on
// the same DATA_DIR: every connector comes back as it was, with its token, listed once in every
// view with an exact count, and no secret is anywhere on disk or in the logs in plaintext. The
// compiled stack, which `npm start` runs (npm test builds it first).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePortBelowEphemeral } from '../../service/free-port';
import { filesContaining } from '../helpers/test-stack';
import { startStackProcess } from '../helpers/stack-process';
import { startTokenMcpServer } from '../fixtures/token-mcp-server';

const TOKEN = 'crash-token-5f1e9a7c';
const entry = 'dist/embedded.mjs';

async function echoThroughProxy(mcpUrl: string): Promise<string> {
  const client = new Client({ name: 'crash-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  const result = await client.callTool({ name: 'echo', arguments: { text: 'still here' } });
  await client.close();
  return (result.content as { text: string }[])[0]!.text;
}

test.serial('a SIGKILL of the whole stack loses no connector and no token', async (t) => {
  const upstream = await startTokenMcpServer({ token: TOKEN });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-crash-'));
  const logFile = path.join(dataDir, 'logs', 'stack.log');
  const port = await freePortBelowEphemeral();
  const env = { DATA_DIR: dataDir, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'debug' };
  t.teardown(() => upstream.close());

  const first = await startStackProcess({ env, logFile, entry });
  const { body: c } = await first.api('POST', '/api/v1/connectors', { url: upstream.url, client_id: 'crash-client', client_secret: 'crash-secret-77aa' });
  t.is((await first.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: TOKEN })).status, 200);
  const { body: other } = await first.api('POST', '/api/v1/connectors', { url: upstream.url, metadata: { name: 'never connected' } });
  t.is(await echoThroughProxy(c.mcp_url), 'still here');
  await first.kill();

  const second = await startStackProcess({ env, logFile, entry });
  t.teardown(() => second.stop());
  const after = await second.api('GET', `/api/v1/connectors/${c.id}`);
  t.is(after.status, 200);
  t.is(after.body.state, 'connected');
  t.is((await second.api('GET', `/api/v1/connectors/${other.id}`)).body.state, 'created');
  // Every list view holds each connector once, with an exact count, once the restarted worker's repair is done.
  const { eventually } = await import('../helpers/test-stack');
  for (const [query, ids] of [['', [c.id, other.id]], ['&state=connected', [c.id]], ['&state=created', [other.id]], ['&state=connecting', []]] as const) {
    const page = await eventually(async () => {
      const res = await second.api('GET', `/api/v1/connectors?limit=100${query}`);
      return res.body?.total_count_exact === true ? res.body : undefined;
    }, 60_000, `the list ${query} to be exact`);
    t.deepEqual(page.items.map((r: { id: string }) => r.id).sort(), [...ids].sort(), `list ${query}`);
    t.is(page.total_count, ids.length, `total_count of ${query}`);
  }
  t.is(await echoThroughProxy(c.mcp_url), 'still here', 'the token survived: the proxy still authenticates upstream');
  t.is(upstream.seenAuthorization.at(-1), `Bearer ${TOKEN}`);
  t.is((await second.api('POST', `/api/v1/connectors/${other.id}/connect`, { access_token: TOKEN })).status, 200, 'updates still work');

  t.is(await second.stop(), 0, 'SIGTERM stops cleanly');
  t.true(fs.statSync(logFile).size > 0);
  for (const secret of [TOKEN, 'crash-secret-77aa']) t.deepEqual(filesContaining(dataDir, secret), [], `${secret} in plaintext`);
});

test.serial('a restart brings back the stdio processes of connectors that were connected, unless their preset is gone', async (t) => {
  const { createRequire } = await import('node:module');
  const { pidsWithEnv } = await import('../helpers/process-env');
  const { eventually } = await import('../helpers/test-stack');
  const require = createRequire(import.meta.url);
  const memory = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist/index.js');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-stdio-crash-'));
  const logFile = path.join(dataDir, 'logs', 'stack.log');
  const port = await freePortBelowEphemeral();
  const marker = `PRESET_MARKER=restart-${port}`;
  const env = {
    DATA_DIR: dataDir, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`,
    CONNECTOR__PRESETS: JSON.stringify([{ url: 'mcp+stdio://memory', stdio: { image: 'mcp/memory', command: [process.execPath], args: [memory], env: { PRESET_MARKER: marker.split('=')[1] } } }]),
  };
  const first = await startStackProcess({ env, logFile, entry });
  const { body: c } = await first.api('POST', '/api/v1/connectors', { url: 'mcp+stdio://memory' });
  t.is((await first.api('POST', `/api/v1/connectors/${c.id}/connect`, {})).status, 200);
  const before = pidsWithEnv(marker);
  t.is(before.length, 1);
  await first.kill();
  // The stdio server's stdin closed with its gateway: it goes too.
  await eventually(async () => (pidsWithEnv(marker).length === 0 ? true : undefined), 10_000, 'the old stdio process to end');

  const second = await startStackProcess({ env, logFile, entry });
  t.teardown(() => second.stop());
  const after = await eventually(async () => {
    const pids = pidsWithEnv(marker);
    return pids.length === 1 ? pids : undefined;
  }, 60_000, 'the workflow to bring the stdio process back');
  t.notDeepEqual(after, before);
  const client = new Client({ name: 'restart-test', version: '1.0.0' });
  await eventually(async () => {
    await client.connect(new StreamableHTTPClientTransport(new URL(c.mcp_url)));
    return true;
  }, 20_000, 'the proxy to reach the new gateway');
  t.true((await client.listTools()).tools.length > 0);
  await client.close();
  t.is((await second.api('GET', `/api/v1/connectors/${c.id}`)).body.state, 'connected');

  // A deployment that no longer has the preset cannot bring the workload back (connectors name
  // their preset; its config is the worker's): disconnected for good, the reason names the preset.
  await second.kill();
  await eventually(async () => (pidsWithEnv(marker).length === 0 ? true : undefined), 10_000, 'the stdio process to end again');
  const third = await startStackProcess({ env: { ...env, CONNECTOR__PRESETS: JSON.stringify([{ url: 'https://other.example/mcp' }]) }, logFile, entry });
  t.teardown(() => third.stop());
  const lost = await eventually(async () => {
    const record = (await third.api('GET', `/api/v1/connectors/${c.id}`)).body;
    return record.state === 'disconnected' ? record : undefined;
  }, 60_000, 'the connector to be disconnected');
  t.regex(lost.disconnect_reason, /^the stdio workload could not be restarted: the preset mcp\+stdio:\/\/memory is no longer configured/);
  t.true(lost.disconnect_permanent);
  const again = await third.api('POST', `/api/v1/connectors/${c.id}/connect`, {});
  t.is(again.status, 422);
  t.regex(again.body.detail, /the preset mcp\+stdio:\/\/memory is no longer configured/);
  t.deepEqual(pidsWithEnv(marker), []);
});
