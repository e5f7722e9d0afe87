// The proxy as the service serves it (the service's own HTTP server, its caller gate with two
// owners' API keys) in front of one raw upstream origin that both owners' connectors use, each
// connector with its own token. Callers are driven from raw sockets.
import net from 'node:net';
import { sha256Hex } from '../../callers/api-keys';
import { createAuthenticator } from '../../callers/authenticator';
import { createLogger } from '../../platform/logger';
import { CallerGate } from '../../proxy/caller-gate';
import { createMcpProxy, type McpProxyOptions } from '../../proxy/mcp-proxy';
import { staticRoutes } from '../../proxy/static-routes';
import { closeServer, createHttpServer, listen } from '../../service/http-server';
import { startRawUpstream, type RawUpstream } from './raw-upstream';

export interface Tenant {
  owner: string;
  apiKey: string;
  connectorId: string;
  /** The connector's upstream token: what a smuggled request would steal. */
  token: string;
}

export const OWNER_A: Tenant = {
  owner: 'team-a', apiKey: 'api-key-of-team-a', connectorId: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', token: 'connector-token-of-team-a',
};
export const OWNER_B: Tenant = {
  owner: 'team-b', apiKey: 'api-key-of-team-b', connectorId: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', token: 'connector-token-of-team-b',
};

export interface TenantProxy {
  port: number;
  host: string;
  upstream: RawUpstream;
  close(): Promise<void>;
}

export async function startTenantProxy(options: Partial<McpProxyOptions> = {}): Promise<TenantProxy> {
  const upstream = await startRawUpstream();
  // An API key's subject names the owner `key:<subject>` (callers/caller.ts).
  const route = (t: Tenant) => ({ kind: 'connected' as const, owner: `key:${t.owner}`, target: upstream.url, token: t.token });
  const authenticator = createAuthenticator({
    enabled: true,
    apiKeys: [OWNER_A, OWNER_B].map((t) => ({ subject: t.owner, sha256: sha256Hex(t.apiKey), admin: false })),
    jwt: null,
  }, (input, init) => fetch(input, init));
  const baseUrl = 'http://127.0.0.1';
  const proxy = createMcpProxy({
    routes: staticRoutes({ [OWNER_A.connectorId]: route(OWNER_A), [OWNER_B.connectorId]: route(OWNER_B) }),
    callers: new CallerGate({ authenticator, baseUrl, maxStreamsPerOwner: 64 }),
    policy: { blockPrivateNetworks: false },
    logger: createLogger('smuggling-test', process.env.LOG_LEVEL ?? 'silent'),
    headersTimeoutMs: 10_000,
    ...options,
  });
  const long = 60_000;
  const server = createHttpServer({
    proxy,
    origin: { baseUrl, allowedOrigins: [], authEnabled: true },
    limits: { headersTimeoutMs: long, requestTimeoutMs: long, keepAliveTimeoutMs: long, maxConnections: 1000 },
  });
  const port = await listen(server, 0, '127.0.0.1');
  return {
    port,
    host: `127.0.0.1:${port}`,
    upstream,
    async close() {
      await closeServer(server);
      proxy.close();
      await upstream.close();
    },
  };
}

/**
 * Request line and the headers every caller sends: its own API key, the proxy's Host. `label`
 * goes into the query string, which the proxy relays, so each upstream request says which
 * request of the test it came from.
 */
export function head(method: string, tenant: Tenant, host: string, extra: string[] = [], options: { label?: string; version?: string } = {}): string {
  const query = options.label ? `?case=${encodeURIComponent(options.label)}` : '';
  return [
    `${method} /api/v1/connectors/${tenant.connectorId}/mcp${query} HTTP/${options.version ?? '1.1'}`,
    `Host: ${host}`,
    `Authorization: Bearer ${tenant.apiKey}`,
    'Accept: application/json, text/event-stream',
    ...extra,
  ].join('\r\n') + '\r\n\r\n';
}

/** The label of an upstream request (see head), or null for one the test never sent. */
export function labelOf(target: string): string | null {
  const match = /[?&]case=([^&]*)/.exec(target);
  return match ? decodeURIComponent(match[1]!) : null;
}

export interface RawAnswer {
  status: number;
  raw: string;
}

/**
 * Writes `bytes` on a fresh connection and reads answers until `count` are complete or the proxy
 * closes the connection. Answers carry Content-Length or are chunked; both are read through.
 */
export function exchange(port: number, bytes: string | Buffer, count = 1): Promise<RawAnswer[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(answersIn(data));
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (answersIn(data).length >= count) finish();
    });
    socket.on('error', (err) => (data.length ? finish() : reject(err)));
    socket.on('close', finish);
    socket.write(bytes);
  });
}

/** The complete answers at the start of `data` (1xx interim answers skipped). */
function answersIn(data: Buffer): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let at = 0;
  for (;;) {
    const end = data.indexOf('\r\n\r\n', at);
    if (end === -1) return answers;
    const headText = data.subarray(at, end).toString('latin1');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(headText)?.[1]);
    const length = /\r\ncontent-length: *(\d+)/i.exec(headText)?.[1];
    let bodyEnd: number;
    if (length !== undefined) bodyEnd = end + 4 + Number(length);
    else if (/\r\ntransfer-encoding: *chunked/i.test(headText)) {
      const last = data.indexOf('\r\n0\r\n\r\n', end + 4 - 2);
      if (last === -1) return answers;
      bodyEnd = last + 7;
    } else bodyEnd = end + 4;
    if (bodyEnd > data.length) return answers;
    if (status >= 200) answers.push({ status, raw: data.subarray(at, bodyEnd).toString('latin1') });
    at = bodyEnd;
  }
}

/** A chunked body of the given pieces, one chunk each. */
export function chunked(...pieces: string[]): string {
  return pieces.map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`).join('') + '0\r\n\r\n';
}
