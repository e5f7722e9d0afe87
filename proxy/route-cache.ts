// Route cache: what the proxy knows about each connector, kept in memory so that relaying a
// request makes no call to the registry (a Temporal workflow query) on the hot path.
//
// - Fresh: an answer is reused for `ttlMs` (default 1 s) after it was loaded. This bounds how
//   long a change in the registry (disconnect, new token) goes unseen by this process. An API
//   in the same process (the embedded stack) calls `invalidate(id)` after every connect,
//   disconnect and delete, which takes effect at once; other processes wait out the TTL.
// - Coalesced: concurrent requests for an id that is not cached share one load.
// - Stale-while-revalidate: for `staleGraceMs` (default 500 ms) past its freshness, an answer is
//   still served while one background refresh runs; under steady traffic no request waits for
//   the registry. While the registry answers, an older answer is never served without a new
//   load, so an old token is used for at most ttlMs + staleGraceMs plus the duration of that one
//   refresh (about 1.5 s).
// - Registry down (the load throws or exceeds `loadTimeoutMs`, default 2 s): a connector last
//   known as connected keeps being served from memory for up to `failureGraceMs` (default 30 s)
//   after its last successful load, while one retry at a time runs in the background; past
//   that, and for any other connector, the answer is 503 (the proxy adds Retry-After). Negative
//   answers (not found, not connected) are not extended during an outage: their state may have
//   changed, and 503 says so.
// - Unknown ids: whatever the loader answers (usually not_found) is cached like any other answer,
//   and the cache holds at most `maxEntries` ids (oldest refreshed first out), so random ids
//   cannot grow it without bound.
// - Token refresh (when the loader can refresh): the route the registry answers after a refresh
//   replaces the cached one at once, so the next request carries the new token without waiting
//   for the TTL; a refused refresh drops the entry, since the connector's state may have moved.
//   A refusal report (upstream 401 no refresh mends) stores the route it answers the same way;
//   step-up requests pass through to the loader.
import type { Logger } from '../platform/logger';
import { ProblemError } from '../contract/problem';
import type { Route, RouteSource, StepUpAnswer, StepUpReport, UpstreamRefusalReport } from './route';
import { errorCode } from './upstream-errors';

export interface RouteCacheOptions {
  ttlMs?: number;
  staleGraceMs?: number;
  failureGraceMs?: number;
  loadTimeoutMs?: number;
  maxEntries?: number;
  /** Milliseconds on a monotonic clock; injectable for tests. */
  now?: () => number;
  logger?: Logger;
}

type Loader = RouteSource | ((connectorId: string) => Promise<Route>);

export class RegistryUnavailableError extends ProblemError {
  constructor() {
    super(503, 'The connector registry is unavailable; try again shortly.');
  }
}

class LoadTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
}

interface Entry {
  route: Route;
  loadedAt: number;
  failedAt?: number;
}

export class RouteCache implements RouteSource {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Route>>();
  private readonly loadRoute: (connectorId: string) => Promise<Route>;
  private readonly ttl: number;
  private readonly staleGrace: number;
  private readonly failureGrace: number;
  private readonly loadTimeout: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  // Present only when the loader has them: the proxy buffers request bodies for a retry only
  // when a refresh is possible at all.
  readonly refresh?: (connectorId: string, sealedToken: string) => Promise<Route>;
  readonly refused?: (connectorId: string, report: UpstreamRefusalReport) => Promise<Route>;
  readonly stepUp?: (connectorId: string, report: StepUpReport) => Promise<StepUpAnswer>;

  constructor(loader: Loader, private readonly options: RouteCacheOptions = {}) {
    this.loadRoute = typeof loader === 'function' ? loader : (id) => loader.get(id);
    if (typeof loader !== 'function') {
      const { refresh, refused, stepUp } = loader;
      if (refresh) this.refresh = (id, sealedToken) => this.storeAnswer(id, () => refresh.call(loader, id, sealedToken));
      if (refused) this.refused = (id, report) => this.storeAnswer(id, () => refused.call(loader, id, report));
      if (stepUp) this.stepUp = stepUp.bind(loader);
    }
    this.ttl = options.ttlMs ?? 1000;
    this.staleGrace = options.staleGraceMs ?? 500;
    this.failureGrace = options.failureGraceMs ?? 30_000;
    this.loadTimeout = options.loadTimeoutMs ?? 2000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? (() => performance.now());
  }

  get size(): number {
    return this.entries.size;
  }

  /** The fresh (or stale-within-grace, refreshing) entry, synchronously; undefined where get would wait or fail. */
  peek(id: string): Route | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    const age = this.now() - entry.loadedAt;
    if (age < this.ttl) return entry.route;
    if (age < this.ttl + this.staleGrace) {
      this.refreshInBackground(id);
      return entry.route;
    }
    return undefined;
  }

  get(id: string): Promise<Route> {
    const entry = this.entries.get(id);
    if (!entry) return this.load(id).catch(() => this.fallback(undefined));
    const age = this.now() - entry.loadedAt;
    if (age < this.ttl) return Promise.resolve(entry.route);
    if (age < this.ttl + this.staleGrace) {
      this.refreshInBackground(id);
      return Promise.resolve(entry.route);
    }
    if (entry.failedAt !== undefined && this.now() - entry.failedAt < this.ttl) {
      // The registry failed moments ago: answer now instead of making every request wait for it.
      this.refreshInBackground(id);
      return this.fallback(entry);
    }
    return this.load(id).catch(() => this.fallback(this.entries.get(id)));
  }

  invalidate(id: string): void {
    this.entries.delete(id);
    this.loading.delete(id); // a load already running must not store what it read before the change
  }

  clear(): void {
    this.entries.clear();
    this.loading.clear();
  }

  /** The route a report to the registry answers replaces the cached one; a failed report drops it. */
  private async storeAnswer(id: string, ask: () => Promise<Route>): Promise<Route> {
    try {
      const route = await ask();
      this.store(id, route); // also makes a load that started before the refresh drop its answer
      return route;
    } catch (err) {
      this.invalidate(id);
      throw err;
    }
  }

  private load(id: string): Promise<Route> {
    const inFlight = this.loading.get(id);
    if (inFlight) return inFlight;
    const pending: Promise<Route> = withTimeout(this.loadRoute(id), this.loadTimeout).then(
      (route) => {
        if (this.loading.get(id) === pending) this.store(id, route);
        return route;
      },
      (err: unknown) => {
        if (this.loading.get(id) === pending) this.markFailed(id, err);
        throw err;
      },
    );
    this.loading.set(id, pending);
    return pending;
  }

  private refreshInBackground(id: string): void {
    if (!this.loading.has(id)) this.load(id).catch(() => undefined); // recorded by markFailed
  }

  private store(id: string, route: Route): void {
    this.loading.delete(id);
    this.entries.delete(id); // re-insert so Map order is refresh order
    this.entries.set(id, { route, loadedAt: this.now() });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  private markFailed(id: string, err: unknown): void {
    this.loading.delete(id);
    const entry = this.entries.get(id);
    if (entry) entry.failedAt = this.now();
    this.options.logger?.warn({ connectorId: id, code: errorCode(err), message: (err as Error)?.message }, 'route load failed');
  }

  private fallback(entry: Entry | undefined): Promise<Route> {
    if (entry?.route.kind === 'connected' && this.now() - entry.loadedAt < this.failureGrace) {
      return Promise.resolve(entry.route);
    }
    return Promise.reject(new RegistryUnavailableError());
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new LoadTimeoutError(`route load took over ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
