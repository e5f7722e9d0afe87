// An upstream for the proxy's token handling, on 127.0.0.1: it records the token and body of
// every request and answers by a rule the test sets. Refusals (401, 403) are written before the
// body is read, as resource servers commonly do; accepted POSTs echo their body, accepted GETs
// open an SSE stream with one event. Also a route source whose refresh the test controls.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { UpstreamRefusalReport, Route, RouteSource } from '../../proxy/route';

export interface SeenRequest {
  method: string;
  token: string | undefined;
  /** Undefined for refused requests, whose body the upstream never reads. */
  body?: Buffer;
}

export type Verdict = { status: 200 } | { status: 401 | 403; challenge: string };

export interface AuthUpstream {
  url: string;
  seen: SeenRequest[];
  /** Decides each request from its token; the default accepts "token-2" only. */
  judge: (token: string | undefined) => Verdict;
  /** Resolves once `count` requests have arrived. */
  arrived(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startAuthUpstream(): Promise<AuthUpstream> {
  const seen: SeenRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const upstream: AuthUpstream = {
    url: '',
    seen,
    judge: (token) => (token === 'token-2' ? { status: 200 } : { status: 401, challenge: 'Bearer error="invalid_token"' }),
    arrived: (count) => new Promise((resolve) => {
      waiters.push({ count, resolve });
      notify();
    }),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  function notify() {
    for (const w of [...waiters]) {
      if (seen.length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }
  const server = http.createServer((req, res) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const record: SeenRequest = { method: req.method ?? '', token };
    seen.push(record);
    notify();
    const verdict = upstream.judge(token);
    if (verdict.status !== 200) {
      res.writeHead(verdict.status, { 'www-authenticate': verdict.challenge, 'content-type': 'application/json' });
      res.end(JSON.stringify({ refused: verdict.status, token }));
      return;
    }
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('event: message\ndata: {"hello":"stream"}\n\n');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      record.body = Buffer.concat(chunks);
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(record.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return upstream;
}

export interface RefreshingSource extends RouteSource {
  refreshCalls: string[];
  refusals: UpstreamRefusalReport[];
  stepUps: string[];
  /** Holds every refresh until released (released from the start unless `held`). */
  release(): void;
}

/**
 * A static route ("conn", token-1 sealed as sealed-1) whose refresh answers token-2 (sealed-2),
 * or what `answer` says. `get` keeps answering token-1: only a cache that stores refreshed
 * routes makes later requests carry token-2.
 */
export function refreshingSource(
  target: string,
  options: { held?: boolean; answer?: () => Promise<Route>; refusedAs?: Route; stepUpUrl?: string | null } = {},
): RefreshingSource {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  if (!options.held) release();
  const source: RefreshingSource = {
    refreshCalls: [],
    refusals: [],
    stepUps: [],
    release,
    get: async (id) => (id === 'conn' ? { kind: 'connected', target, token: 'token-1', sealedToken: 'sealed-1' } : { kind: 'not_found' }),
    async refresh(_id, sealedToken) {
      source.refreshCalls.push(sealedToken);
      await released;
      return options.answer ? options.answer() : { kind: 'connected', target, token: 'token-2', sealedToken: 'sealed-2' };
    },
    // The registry's answer to a refusal: the connector is disconnected, or what `refusedAs` says.
    async refused(_id, report) {
      source.refusals.push(report);
      return options.refusedAs ?? { kind: 'not_connected', state: 'disconnected' };
    },
    // The registry's answer to a step-up: a URL on offer (default), or none.
    async stepUp(_id, report) {
      source.stepUps.push(report.scope);
      const url = options.stepUpUrl === undefined ? 'https://connector.test/api/v1/connectors/oauth/authorize?step-up' : options.stepUpUrl;
      return { authorizationUrl: url, reason: url ? null : 'the authorization server is unavailable' };
    },
  };
  return source;
}

/** A POST through the proxy whose body is written in parts; `between` runs after the first part. */
export function postInParts(url: string, parts: Buffer[], between?: () => Promise<void>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    void (async () => {
      req.write(parts[0]);
      if (between) await between();
      for (const part of parts.slice(1)) req.write(part);
      req.end();
    })().catch(reject);
  });
}
