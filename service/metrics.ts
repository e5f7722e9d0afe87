// The process's one metrics registry and the /metrics endpoint that serves it. On the main port
// /metrics is a route like the API's: with caller authentication on it needs an admin credential
// (metrics name every connector and how it is used, which only an admin may see). With
// CONNECTOR__METRICS_PORT set it moves to a server of its own on that port, unauthenticated there (a
// scraper on the cluster's network, behind its NetworkPolicy), and the main port no longer has it;
// there a Host that is not an address is refused (callers/request-origin.ts: DNS rebinding).
import http from 'node:http';
import { collectDefaultMetrics } from 'prom-client';
import type { Config } from '../config/config';
import { METRICS_PATH, createMetrics, type Metrics } from '../platform/metrics';
import type { Logger } from '../platform/logger';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../contract/problem';
import { capConnections, serverOptions } from '../platform/server-limits';
import { authorizationOf, type Authenticator } from '../callers/authenticator';
import { IdentityProviderUnavailable, Unauthenticated } from '../callers/caller';
import { metricsHostRefusal } from '../callers/request-origin';
import { closeServer, listen } from './http-server';

/** Text appended to every scrape (the Temporal SDK's own series, fetched at scrape time). */
export type ExtraMetrics = () => Promise<string>;

export interface ProcessMetrics extends Metrics {
  /** Other sources merged into each scrape. */
  readonly extras: ExtraMetrics[];
}

/** Built once per process (per embedded stack in tests) and passed to whatever records. */
export function createProcessMetrics(): ProcessMetrics {
  const metrics = createMetrics();
  collectDefaultMetrics({ register: metrics.registry });
  return { ...metrics, extras: [] };
}

export async function scrapeText(metrics: ProcessMetrics): Promise<string> {
  const own = await metrics.registry.metrics();
  const extra = await Promise.all(metrics.extras.map((source) => source().catch(() => '')));
  return [own, ...extra].filter(Boolean).join('\n');
}

/** The handler of GET /metrics; `auth` null: open (the separate port). */
export function metricsEndpoint(metrics: ProcessMetrics, auth: Authenticator | null, logger: Logger): http.RequestListener {
  return (req, res) => {
    void answer(req, res, metrics, auth).catch((err: unknown) => {
      logger.error({ err }, 'metrics scrape failed');
      if (!res.headersSent) sendProblem(res, 500, 'the metrics could not be collected');
      else res.destroy();
    });
  };
}

async function answer(req: http.IncomingMessage, res: http.ServerResponse, metrics: ProcessMetrics, auth: Authenticator | null): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendProblem(res, 405, 'only GET is served here', { allow: 'GET, HEAD' });
  if (auth?.enabled) {
    const refused = await refusal(req, auth);
    if (refused) return sendProblem(res, refused.status, refused.detail, refused.headers);
  }
  const text = await scrapeText(metrics);
  res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : text);
}

interface Refusal { status: number; detail: string; headers: Record<string, string> }

async function refusal(req: http.IncomingMessage, auth: Authenticator): Promise<Refusal | null> {
  try {
    const caller = await auth.authenticate(authorizationOf(req.rawHeaders));
    return caller.admin ? null : { status: 403, detail: 'the metrics need an admin credential', headers: {} };
  } catch (err) {
    if (err instanceof Unauthenticated) {
      return { status: 401, detail: err.message, headers: { 'www-authenticate': err.given ? 'Bearer error="invalid_token"' : 'Bearer' } };
    }
    if (err instanceof IdentityProviderUnavailable) return { status: 503, detail: 'the identity provider cannot be reached; try again', headers: {} };
    throw err;
  }
}

function sendProblem(res: http.ServerResponse, status: number, detail: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(problemBody(status, detail)));
}

export interface MetricsServing {
  /** For the main port's server; absent when CONNECTOR__METRICS_PORT serves the metrics instead. */
  endpoint?: http.RequestListener;
  /** The separate port, when one is configured. */
  port?: number;
  close(): Promise<void>;
}

/** Where this process serves its metrics, per CONNECTOR__METRICS_PORT. */
export async function serveMetrics(config: Config, metrics: ProcessMetrics, auth: Authenticator, logger: Logger): Promise<MetricsServing> {
  if (config.metricsPort === undefined) return { endpoint: metricsEndpoint(metrics, auth, logger), close: async () => undefined };
  const open = metricsEndpoint(metrics, null, logger);
  const server = http.createServer(serverOptions(config.http), (req, res) => {
    const refused = metricsHostRefusal(req.headers, config.baseUrl);
    if (refused) return sendProblem(res, 403, refused);
    if (new URL(req.url ?? '/', 'http://x').pathname === METRICS_PATH) return open(req, res);
    sendProblem(res, 404, 'this port serves only /metrics');
  });
  capConnections(server, config.http);
  const port = await listen(server, config.metricsPort, config.host);
  logger.info({ port }, `metrics on ${config.host}:${port}${METRICS_PATH}`);
  return { port, close: () => closeServer(server) };
}

/** The Temporal SDK's own series (its Prometheus exporter on loopback), read at scrape time. */
export function sdkMetrics(url: string): ExtraMetrics {
  return async () => {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return res.ok ? res.text() : '';
  };
}
