// Toolsets as the chart runs them: two proxy processes (dist/proxy.mjs) on one Temporal and one
// FerretDB, behind a balancer that sends each request to the next proxy on a fresh connection (a
// Kubernetes Service without session affinity), with the API and the worker as processes of their
// own. A 2025-11-25 SDK client's session works whichever proxy each request reaches, its member's
// upstream session is one for both, a toolset change made through the API reaches the session's
// GET stream wherever it is held, the session survives a restart of a proxy, another caller's use
// of it answers 404, and its DELETE ends it on both proxies. A 2026-07-28 client works the same.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { sha256Hex } from '../../callers/api-keys';
import { freePortBelowEphemeral } from '../../service/free-port';
import { startRecordingMcpServer } from '../fixtures/recording-mcp-server';
import { startToolsMcpServer } from '../fixtures/tools-mcp-server';
import { startSplitProcesses } from '../helpers/split-processes';
import { eventually } from '../helpers/test-stack';

const KEYS = { alice: 'replicas-key-alice-8e1f', bob: 'replicas-key-bob-4a7c' };
const as = (key: string) => ({ authorization: `Bearer ${key}` });
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;

/** Each request to the next backend, on a connection of its own; counts what each got. */
async function balancer(port: number, backends: () => number[]): Promise<{ served: number[]; close(): Promise<void> }> {
  const served = [0, 0];
  let next = 0;
  const server = http.createServer((req, res) => {
    const index = next++ % 2;
    served[index]! += 1;
    const upstream = http.request({ host: '127.0.0.1', port: backends()[index], path: req.url, method: req.method, headers: req.headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    served,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test('a toolset session is served by either proxy, survives a restart of one, and ends on both', async (t) => {
  t.timeout(8 * 60_000);
  const recording = await startRecordingMcpServer({ requireToken: 'rec-token' });
  const tools = await startToolsMcpServer({ name: 'more', tokens: { 'more-token': ['lookup'] } });
  t.teardown(() => Promise.all([recording.close(), tools.close()]));
  const { start, proxyPort } = await startSplitProcesses(t, {
    CONNECTOR__API_KEYS: JSON.stringify(Object.entries(KEYS).map(([subject, key]) => ({ subject, sha256: sha256Hex(key) }))),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8', CONNECTOR__RATE_LIMIT_PER_OWNER: 'off', CONNECTOR__CONNECT_TIMEOUT_MS: '30000',
  });
  await start('dist/worker.mjs', 'worker');
  const api = await start('dist/api.mjs', 'api');
  const ports = [await freePortBelowEphemeral(), await freePortBelowEphemeral()];
  const proxies = [await start('dist/proxy.mjs', 'proxy-1', { PORT: String(ports[0]) }), await start('dist/proxy.mjs', 'proxy-2', { PORT: String(ports[1]) })];
  const front = await balancer(proxyPort, () => ports);
  t.teardown(() => front.close());

  const connector = async (url: string, token: string, name: string) => {
    const { body } = await api.api('POST', '/api/v1/connectors', { url, metadata: { name } }, as(KEYS.alice));
    const connect = await api.api('POST', `/api/v1/connectors/${body.id}/connect`, { access_token: token }, as(KEYS.alice));
    t.is(connect.body.state, 'connected', connect.text);
    return body.id as string;
  };
  const rec = await connector(recording.url, 'rec-token', 'rec');
  const more = await connector(tools.url, 'more-token', 'more');
  const { body: toolset } = await api.api('POST', '/api/v1/toolsets', { name: 'replicated', members: [{ connector_id: rec }] }, as(KEYS.alice));
  t.is(toolset.mcp_url, `http://127.0.0.1:${proxyPort}/api/v1/toolsets/${toolset.id}/mcp`);

  // initialize reaches one proxy, notifications/initialized and the GET stream the other.
  const client = new ClientV1({ name: 'replicas-v1', version: '1' });
  let listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (listChanged += 1));
  const transport = new TransportV1(new URL(toolset.mcp_url), { requestInit: { headers: as(KEYS.alice) } });
  await client.connect(transport);
  const sessionId = transport.sessionId!;
  t.deepEqual((await client.listTools()).tools.map((x) => x.name).sort(), ['rec__ack', 'rec__announce', 'rec__echo', 'rec__stream_progress']);
  for (let i = 0; i < 10; i++) t.is(textOf(await client.callTool({ name: 'rec__echo', arguments: { text: `call ${i}` } })), `call ${i}`);
  t.true(front.served[0]! >= 6 && front.served[1]! >= 6, `both proxies served the session (${front.served})`);
  t.is(recording.sessionIds().length, 1, "one member session for the toolset session, whichever proxy needed it");

  // A change made through the API process reaches the session's GET stream, wherever it is held.
  const patched = await api.api('PATCH', `/api/v1/toolsets/${toolset.id}`, { members: [{ connector_id: rec }, { connector_id: more }] }, as(KEYS.alice));
  t.is(patched.status, 200, patched.text);
  await eventually(async () => (listChanged > 0 ? true : undefined), 60_000, 'tools/list_changed on the GET stream');
  t.true((await client.listTools()).tools.some((x) => x.name === 'more__lookup'));

  // A restart of one proxy: the session, and its member's upstream session, go on.
  await proxies[0]!.stop();
  proxies[0] = await start('dist/proxy.mjs', 'proxy-1-again', { PORT: String(ports[0]) });
  for (let i = 0; i < 6; i++) t.is(textOf(await client.callTool({ name: 'rec__echo', arguments: { text: `after ${i}` } })), `after ${i}`);
  t.is(textOf(await client.callTool({ name: 'more__lookup', arguments: { text: 'x' } })), 'more:lookup:x');
  t.is(recording.sessionIds().length, 1, 'the same member session after the restart');

  // Another caller with alice's session id: 404, on either proxy.
  const ping = (port: number, key: string) => fetch(`http://127.0.0.1:${port}/api/v1/toolsets/${toolset.id}/mcp`, {
    method: 'POST', headers: { ...as(key), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  for (const port of ports) t.is((await ping(port, KEYS.bob)).status, 404, `bob on ${port}`);
  for (const port of ports) t.is((await ping(port, KEYS.alice)).status, 200, `alice on ${port}`);

  // DELETE through either: the session is gone on both, and the member's session with it.
  await transport.terminateSession();
  for (const port of ports) t.is((await ping(port, KEYS.alice)).status, 404, `ended on ${port}`);
  await recording.waitForRequest((r) => r.method === 'DELETE');
  await client.close();

  // A 2026-07-28 client through the same balancer.
  const modern = new ClientV2({ name: 'replicas-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await modern.connect(new TransportV2(new URL(toolset.mcp_url), { requestInit: { headers: as(KEYS.alice) } }));
  for (let i = 0; i < 6; i++) t.is(textOf(await modern.callTool({ name: 'rec__echo', arguments: { text: `modern ${i}` } })), `modern ${i}`);
  await modern.close();
});
