// The production shape: Temporal and the database as external servers, two API processes, two
// workers and one proxy, each its own process. A connector created through one API is served
// by the other and by the proxy; a worker killed mid-connect loses nothing.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createLogger } from '../../core/logger';
import { startFerretDb } from '../../stack/servers/ferretdb-server';
import { freePort } from '../../stack/servers/free-port';
import { startTemporalDevServer } from '../../stack/servers/temporal-dev-server';
import { eventually } from '../helpers/test-stack';
import { startStackProcess, type StackProcess } from '../helpers/stack-process';
import { startTokenMcpServer } from '../fixtures/token-mcp-server';

const TOKEN = 'split-token-31c0';

test('two APIs, two workers and a proxy as separate processes share one truth', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-split-'));
  const log = createLogger('split-test', 'warn', path.join(dataDir, 'logs', 'servers.log'));
  const temporal = await startTemporalDevServer({ dataDir, headless: true, log });
  const mongo = await startFerretDb({ dataDir, log });
  const upstream = await startTokenMcpServer({ token: TOKEN });
  const processes: StackProcess[] = [];
  t.teardown(async () => {
    for (const p of processes) await p.stop().catch(() => undefined);
    await upstream.close();
    await mongo.stop();
    await temporal.stop();
  });

  const proxyPort = await freePort();
  const common = {
    TEMPORAL_ADDRESS: temporal.address, MONGODB_URI: mongo.uri, HOST: '127.0.0.1', LOG_LEVEL: 'info',
    CONNECTOR__ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'), CONNECTOR__CONNECT_TIMEOUT_MS: '30000',
    BASE_URL: `http://127.0.0.1:${proxyPort}`,
  };
  const start = async (entry: string, name: string, extra: Record<string, string> = {}) => {
    const port = extra.PORT ?? String(await freePort());
    const p = await startStackProcess({
      entry, env: { ...common, PORT: port, ...extra }, logFile: path.join(dataDir, 'logs', `${name}.log`),
      ...(entry === 'stack/worker.ts' ? { readyLogLine: 'worker running' } : {}),
    });
    processes.push(p);
    return p;
  };

  const workerA = await start('stack/worker.ts', 'worker-a');
  const api1 = await start('stack/api.ts', 'api-1');
  const api2 = await start('stack/api.ts', 'api-2');
  t.not(api1.baseUrl, api2.baseUrl);

  const { body: c } = await api1.api('POST', '/api/v1/connectors', { url: upstream.url });
  const seenByOther = await api2.api('GET', `/api/v1/connectors/${c.id}`);
  t.is(seenByOther.status, 200);
  t.is(seenByOther.body.state, 'created');

  // Worker A takes the connect's probe, which the upstream holds; A dies with the probe in hand.
  upstream.setHang(true);
  const seenBefore = upstream.seenAuthorization.length;
  const connecting = api2.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: TOKEN });
  await eventually(async () => (upstream.seenAuthorization.length > seenBefore ? true : undefined), 30_000, 'the probe to reach the upstream');
  const workerB = await start('stack/worker.ts', 'worker-b');
  await workerA.kill();
  upstream.setHang(false);

  const connected = await connecting;
  t.is(connected.status, 200, JSON.stringify(connected.body));
  t.is(connected.body.state, 'connected');
  t.is((await api1.api('GET', `/api/v1/connectors/${c.id}`)).body.state, 'connected');
  const events = (await api1.api('GET', `/api/v1/connectors/${c.id}/events`)).body.items;
  t.deepEqual(events.map((e: { to: string }) => e.to), ['created', 'connecting', 'connected'], 'exactly one connect on record');

  // The proxy process serves it, with the token from the workflow.
  await start('stack/proxy.ts', 'proxy', { PORT: String(proxyPort) });
  const client = new Client({ name: 'split-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(c.mcp_url)));
  const result = await client.callTool({ name: 'echo', arguments: { text: 'through the proxy process' } });
  await client.close();
  t.is((result.content as { text: string }[])[0]!.text, 'through the proxy process');
  t.is(upstream.seenAuthorization.at(-1), `Bearer ${TOKEN}`);
  t.truthy(workerB);
});
