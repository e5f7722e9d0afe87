// Target 42.3c: how long a new token takes to reach every proxy. One connector, connected with a
// token, is called without pause through each proxy (the embedded stack's own, and a proxy role
// in a process of its own on the same Temporal and database, as a second replica would run);
// then connected again with another token. A proxy has the new token once a call through it comes
// back with it (the MCP server's `token` tool answers the token it was sent). The proxy role's route
// cache trusts a route for 60 s here (CONNECTOR__ROUTE_CACHE_TTL_MS), so only the change feed
// (service/change-listener.ts) can bring the token sooner: invalidated on change, not by age.
import crypto from 'node:crypto';
import path from 'node:path';
import { Pool } from 'undici';
import { freePort } from '../../service/free-port';
import { startStackProcess, startTokenMcpServer } from '../../test/helpers/for-bench';

/** A proxy that has not served the new token after this long is reported at this figure, a FAIL. */
const GIVE_UP_MS = 10_000;
/** After the new token arrives, calls go on this long: an old token seen again would be a stale cache. */
const WATCH_AFTER_MS = 300;

export interface TokenReach {
  /** Per swap, per proxy: seconds from the connect's answer to the first call answered with the new token. */
  swaps: { proxy: string; seconds: number; staleAfter: number }[][];
  stop(): Promise<void>;
}

interface Proxy { name: string; pool: Pool; path: string }

export interface TokenReachOptions {
  /** The embedded stack: its API and proxy, and what a proxy role needs to join it. */
  apiPort: number;
  temporalAddress: string;
  mongoUri: string;
  mongoDatabase: string;
  encryptionKey: string;
  dataDir: string;
  swaps: number;
}

export async function measureTokenReach(options: TokenReachOptions): Promise<TokenReach> {
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => { for (const s of stops.reverse()) await s().catch(() => undefined); };
  try {
    // Any token accepted: a proxy still sending the old one is answered, and says so.
    const upstream = await startTokenMcpServer({ token: null, echoToken: true });
    stops.push(() => upstream.close());
    const port = await freePort();
    const role = await startStackProcess({
      entry: 'service/proxy.ts',
      env: {
        TEMPORAL_ADDRESS: options.temporalAddress, MONGODB_URI: options.mongoUri, MONGODB_DATABASE: options.mongoDatabase,
        CONNECTOR__ENCRYPTION_KEY: options.encryptionKey, PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}`,
        LOG_LEVEL: 'warn', CONNECTOR__ROUTE_CACHE_TTL_MS: '60000',
      },
      logFile: path.join(options.dataDir, 'proxy-role.log'),
    });
    stops.push(() => role.stop());
    const api = new Pool(`http://127.0.0.1:${options.apiPort}`, { connections: 2 });
    stops.push(() => api.close());
    const post = async (urlPath: string, body: unknown) => {
      const res = await api.request({ method: 'POST', path: urlPath, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.statusCode, body: (await res.body.json()) as { id?: string; state?: string; detail?: string } };
    };
    const created = await post('/api/v1/connectors', { url: upstream.url, metadata: { name: 'token-reach' } });
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.body.detail ?? ''}`);
    const connectPath = `/api/v1/connectors/${created.body.id}/connect`;
    const connect = async (token: string) => {
      const res = await post(connectPath, { access_token: token });
      if (res.status !== 200 || res.body.state !== 'connected') throw new Error(`connect answered ${res.status}: ${res.body.detail ?? res.body.state}`);
    };
    const mcpPath = `/api/v1/connectors/${created.body.id}/mcp`;
    const proxies: Proxy[] = [
      { name: 'embedded stack', pool: new Pool(`http://127.0.0.1:${options.apiPort}`, { connections: 1 }), path: mcpPath },
      { name: 'proxy role', pool: new Pool(`http://127.0.0.1:${port}`, { connections: 1 }), path: mcpPath },
    ];
    stops.push(async () => void (await Promise.all(proxies.map((p) => p.pool.close()))));

    let token = tokenOf(0);
    await connect(token);
    for (const proxy of proxies) await untilServed(proxy, token);
    const swaps: TokenReach['swaps'] = [];
    for (let swap = 1; swap <= options.swaps; swap++) {
      const next = tokenOf(swap);
      let answeredAt = Infinity;
      const watching = proxies.map((proxy) => watchFor(proxy, token, next, () => answeredAt));
      await connect(next);
      answeredAt = performance.now();
      swaps.push(await Promise.all(watching));
      token = next;
    }
    return { swaps, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

const tokenOf = (n: number) => `reach-${n}-${crypto.randomBytes(6).toString('hex')}`;

/** The token a call through `proxy` reached the upstream with ('' when the call failed). */
async function calledWith(proxy: Proxy): Promise<string> {
  const res = await proxy.pool.request({
    method: 'POST', path: proxy.path,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'token', arguments: {} } }),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) return '';
  // The answer as one event of a stream (the server's default) or as JSON.
  const json = /^data: (.*)$/m.exec(text)?.[1] ?? text;
  const answer = JSON.parse(json) as { result?: { content?: { text?: string }[] } };
  return answer.result?.content?.[0]?.text?.replace(/^Bearer /, '') ?? '';
}

async function untilServed(proxy: Proxy, token: string): Promise<void> {
  const started = performance.now();
  while ((await calledWith(proxy)) !== token) {
    if (performance.now() - started > 30_000) throw new Error(`${proxy.name} never served the connector's token`);
  }
}

/** Calls through `proxy` until one comes back with `next`, then a little longer, counting any `old` seen again. */
async function watchFor(proxy: Proxy, old: string, next: string, answeredAt: () => number): Promise<TokenReach['swaps'][number][number]> {
  const started = performance.now();
  let reachedAt = NaN;
  let staleAfter = 0;
  for (;;) {
    const seen = await calledWith(proxy);
    const now = performance.now();
    if (seen === next && Number.isNaN(reachedAt)) reachedAt = now;
    if (seen === old && !Number.isNaN(reachedAt)) staleAfter++;
    if (!Number.isNaN(reachedAt) && now - reachedAt >= WATCH_AFTER_MS) break;
    if (Number.isNaN(reachedAt) && now - started > GIVE_UP_MS) return { proxy: proxy.name, seconds: GIVE_UP_MS / 1000, staleAfter };
  }
  // Before the connect's answer counts as at once: the API's own process forgets the route as it writes.
  return { proxy: proxy.name, seconds: Math.max(0, reachedAt - answeredAt()) / 1000, staleAfter };
}
