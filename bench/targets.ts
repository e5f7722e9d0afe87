// Issue 42's performance targets, declared once as data: which bench measures each, in which part
// of its run, what is judged and against what. A target is a ratio of two paths' figures of the
// same run, a difference of two (what one path adds to another), or one figure against an
// absolute limit. The benches hand in what they measured and print one line per target: PASS,
// FAIL, or NOT MEASURED when a figure is missing (a path the run did not make, or no requests
// counted) or the run was smaller than the target's (a shrunk scale run), never a figure made up.

/** A figure a bench's run measures. */
export type Figure =
  | 'req/s' | 'CPU µs/req' | 'CPU µs/call' | 'p50 ms' | 'p99 ms' | 'items/s' | 'MB' | 's'
  | 'connectors' | 'share';

export type Bench = 'proxy' | 'toolset' | 'lifecycle' | 'scale';

interface TargetBase {
  /** "42.1a": the issue, the target's number there, a letter when it has several lines. */
  id: string;
  bench: Bench;
  /** The part of the bench's run that measures it, where the bench prints targets in several places. */
  part?: string;
  what: string;
  figure: Figure;
  /** The path (or the measurement) whose figure is judged. */
  of: string;
  direction: 'at most' | 'at least';
  threshold: number;
  /**
   * For a ratio: a path of the same run that does part of what `of` does and nothing else, so `of`
   * cannot beat it: where it misses the threshold itself, the target is out of reach in that run, and
   * the line says so (issue 42 keeps http-proxy as the relay: its floor is node:http + http-proxy).
   */
  bound?: { path: string; what: string };
}

/**
 * ratio: of / to; added: of − to (what `of` adds to `to`, in the figure's unit); absolute: `of`
 * alone. The first two compare with a baseline of the same run, so a busy machine hits both sides.
 */
export type IssueTarget = TargetBase & ({ kind: 'ratio' | 'added'; to: string } | { kind: 'absolute' });

const HTTP_PROXY_FLOOR = { path: 'floor', what: 'node:http + http-proxy and nothing else' };

export const TARGETS: readonly IssueTarget[] = [
  // 1: ahead of the fastest peer, a Go relay of TBXark mcp-proxy's kind (bench/go-relay).
  { id: '42.1a', bench: 'proxy', part: 'load', kind: 'ratio', what: 'throughput, embedded stack (npm start, API key) / Go relay (mcp-go)', figure: 'req/s', of: 'embedded-key', to: 'go-relay', direction: 'at least', threshold: 1, bound: HTTP_PROXY_FLOOR },
  { id: '42.1b', bench: 'proxy', part: 'load', kind: 'ratio', what: 'CPU per request, embedded stack (npm start, API key) / Go relay (mcp-go)', figure: 'CPU µs/req', of: 'embedded-key', to: 'go-relay', direction: 'at most', threshold: 1, bound: HTTP_PROXY_FLOOR },
  // 1, "including rounds after 15 s idle": each loaded cold, every process of the run having idled (bench/proxy.ts, BENCH_IDLE_MS).
  { id: '42.1c', bench: 'proxy', part: 'after idle', kind: 'ratio', what: 'throughput after 15 s idle, embedded stack (npm start, API key) / Go relay (mcp-go)', figure: 'req/s', of: 'embedded-key', to: 'go-relay', direction: 'at least', threshold: 1, bound: HTTP_PROXY_FLOOR },
  { id: '42.1d', bench: 'proxy', part: 'after idle', kind: 'ratio', what: 'CPU per request after 15 s idle, embedded stack (npm start, API key) / Go relay (mcp-go)', figure: 'CPU µs/req', of: 'embedded-key', to: 'go-relay', direction: 'at most', threshold: 1, bound: HTTP_PROXY_FLOOR },
  // 2: the proxy role close to the floor of its stack (node:http + http-proxy).
  { id: '42.2a', bench: 'proxy', part: 'load', kind: 'ratio', what: 'CPU per request, proxy role (API key) / floor (node:http + http-proxy)', figure: 'CPU µs/req', of: 'proxy-key', to: 'floor', direction: 'at most', threshold: 1.2 },
  { id: '42.2b', bench: 'proxy', part: 'load', kind: 'ratio', what: 'CPU per request, proxy role (JWT) / floor (node:http + http-proxy)', figure: 'CPU µs/req', of: 'proxy-jwt', to: 'floor', direction: 'at most', threshold: 1.2 },
  // Added latency is each path's p50 less the direct path's: the proxy's minus the bare relay's is
  // the difference of their own p50s, the direct path cancelling out.
  { id: '42.2c', bench: 'proxy', part: 'one at a time', kind: 'added', what: 'added p50 one request at a time, proxy role (API key) minus the bare node:http relay\'s', figure: 'p50 ms', of: 'proxy-key', to: 'bare', direction: 'at most', threshold: 0.1 },
  { id: '42.2d', bench: 'proxy', part: 'one at a time', kind: 'added', what: 'added p99 one request at a time, proxy role (API key) vs direct', figure: 'p99 ms', of: 'proxy-key', to: 'direct', direction: 'at most', threshold: 1.5 },
  // 3: create + connect close to the design's floor loop (bench/lifecycle.ts), and a new token everywhere at once.
  { id: '42.3a', bench: 'lifecycle', part: 'concurrency 50', kind: 'ratio', what: 'create + connect at 50 concurrent / the floor loop', figure: 'items/s', of: 'connectors', to: 'floor', direction: 'at least', threshold: 0.8 },
  { id: '42.3b', bench: 'lifecycle', part: 'one at a time', kind: 'absolute', what: 'connect p50, one at a time', figure: 'p50 ms', of: 'connect', direction: 'at most', threshold: 300 },
  { id: '42.3c', bench: 'lifecycle', part: 'token reach', kind: 'absolute', what: 'a new token reaches every proxy (embedded stack + a proxy role process, route cache TTL 60 s), slowest of the swaps', figure: 's', of: 'token reach', direction: 'at most', threshold: 0.5 },
  // 4: a call through a toolset close to the same call on its member's own MCP path.
  { id: '42.4', bench: 'toolset', kind: 'ratio', what: 'CPU per call, toolset / member\'s own MCP path', figure: 'CPU µs/call', of: 'toolset', to: 'member path', direction: 'at most', threshold: 1.3 },
  // 5: the proxy role's memory with many streams open (bench/proxy.ts, its SSE part).
  { id: '42.5a', bench: 'proxy', part: 'sse streams', kind: 'absolute', what: 'RSS with 1,000 SSE streams open, wave 1', figure: 'MB', of: 'wave 1 open', direction: 'at most', threshold: 150 },
  { id: '42.5b', bench: 'proxy', part: 'sse streams', kind: 'absolute', what: 'RSS with 1,000 SSE streams open, wave 2', figure: 'MB', of: 'wave 2 open', direction: 'at most', threshold: 150 },
  { id: '42.5c', bench: 'proxy', part: 'sse streams', kind: 'added', what: 'RSS flat after close: what wave 2 leaves resident above wave 1', figure: 'MB', of: 'wave 2 after close', to: 'wave 1 after close', direction: 'at most', threshold: 5 },
  // 6: refresh capacity on the 2 cores (bench/scale.ts): 10,000 OAuth connectors with 5-minute tokens.
  { id: '42.6a', bench: 'scale', kind: 'absolute', what: 'OAuth connectors with 5-minute tokens connected and refreshing', figure: 'connectors', of: 'oauth connected', direction: 'at least', threshold: 10_000 },
  // Lateness apart before and after the restart: after it, a refresh due while the stack was down is as late as the restart was long.
  { id: '42.6b', bench: 'scale', kind: 'absolute', what: 'refreshes within 5 s of their schedule, a token lifetime before the restart', figure: 'share', of: 'on time before restart', direction: 'at least', threshold: 1 },
  { id: '42.6c', bench: 'scale', kind: 'absolute', what: 'refreshes within 5 s of their schedule, a token lifetime after the restart of the whole stack', figure: 'share', of: 'on time after restart', direction: 'at least', threshold: 1 },
  { id: '42.6d', bench: 'scale', kind: 'absolute', what: 'OAuth connectors connected before the restart that refreshed after it', figure: 'share', of: 'refreshed across restart', direction: 'at least', threshold: 1 },
];

export type Verdict = 'PASS' | 'FAIL' | 'NOT MEASURED';

/** A path's figure, or undefined when the run has none. */
export type Figures = (path: string, figure: Figure) => number | undefined;

/** Differences may be zero or negative (a path faster than its baseline); ratios need both sides above zero. */
const usable = (value: number | undefined, positive = true): value is number => value !== undefined && Number.isFinite(value) && (!positive || value > 0);

/** The paths whose figures a target reads. */
const pathsOf = (target: IssueTarget): string[] => (target.kind === 'absolute' ? [target.of] : [target.of, target.to]);

/** The value the target judges (ratio, difference or the figure itself), or undefined when a figure is missing. */
export function valueOf(target: IssueTarget, figures: Figures): number | undefined {
  const values = pathsOf(target).map((p) => figures(p, target.figure));
  const positive = target.kind === 'ratio';
  if (!values.every((v) => usable(v, positive))) return undefined;
  const [of, to] = values as [number, number?];
  if (target.kind === 'ratio') return of / to!;
  return target.kind === 'added' ? of - to! : of;
}

/** The ratio a ratio target judges (kept for its callers: valueOf for any kind). */
export const ratioOf = (target: IssueTarget, figures: Figures): number | undefined => valueOf(target, figures);

export function judge(target: IssueTarget, value: number | undefined): Verdict {
  if (value === undefined || !Number.isFinite(value)) return 'NOT MEASURED';
  return (target.direction === 'at most' ? value <= target.threshold : value >= target.threshold) ? 'PASS' : 'FAIL';
}

const decimals = (figure: Figure): number => (figure === 'p50 ms' || figure === 'p99 ms' || figure === 's' ? 3 : figure === 'MB' || figure === 'share' ? 2 : figure === 'items/s' ? 1 : 0);
const shown = (value: number, figure: Figure): string => value.toFixed(decimals(figure));
const unitOf = (figure: Figure): string => figure.replace(/^p\d+ /, '');

/** What the line quotes: the value judged and the figures it comes from. */
function quote(target: IssueTarget, value: number, figures: Figures): string {
  const [of, to] = pathsOf(target).map((p) => shown(figures(p, target.figure)!, target.figure));
  if (target.kind === 'ratio') return `${value.toFixed(2)}× (${of} / ${to} ${target.figure})`;
  if (target.kind === 'added') return `${value >= 0 ? '+' : ''}${shown(value, target.figure)} ${unitOf(target.figure)} (${of} − ${to} ${target.figure})`;
  return `${of} ${unitOf(target.figure)}`;
}

/**
 * One line: the value, the figures it comes from, the threshold, the verdict. `outOfScope` says
 * why this run cannot judge the target although it measured (a run smaller than the target's):
 * the line is NOT MEASURED and quotes the run's own figure beside the reason.
 */
export function targetLine(target: IssueTarget, figures: Figures, outOfScope?: string): string {
  const value = valueOf(target, figures);
  const verdict = outOfScope ? 'NOT MEASURED' : judge(target, value);
  const limit = `${target.direction === 'at most' ? '<=' : '>='} ${target.threshold}${target.kind === 'ratio' ? '' : ` ${unitOf(target.figure)}`}`;
  const head = `TARGET ${target.id} ${target.what}:`;
  if (outOfScope) return `${head} (${limit}) NOT MEASURED (${outOfScope}${value === undefined ? '' : `; this run: ${quote(target, value, figures)}`})`;
  if (verdict === 'NOT MEASURED') {
    const missing = pathsOf(target).filter((p) => !usable(figures(p, target.figure), target.kind === 'ratio'));
    return `${head} (${limit}) NOT MEASURED (no ${target.figure} of ${missing.join(', ')} measured here)`;
  }
  return `${head} ${quote(target, value!, figures)} (${limit}) ${verdict}${boundNote(target, figures)}`;
}

/** Where a ratio target has a bound: the bound's own ratio, and whether it alone already misses the threshold. */
function boundNote(target: IssueTarget, figures: Figures): string {
  if (!target.bound || target.kind !== 'ratio') return '';
  const bound = valueOf({ ...target, of: target.bound.path }, figures);
  if (bound === undefined) return '';
  const reach = judge(target, bound) === 'PASS' ? '' : ': out of reach in this run';
  return ` (the ${target.bound.path} alone, ${target.bound.what}, is ${bound.toFixed(2)}×${reach})`;
}

/** The lines of every target one bench measures (in one part of its run, when given). */
export function benchTargetLines(bench: Bench, figures: Figures, options: { part?: string; outOfScope?: (target: IssueTarget) => string | undefined } = {}): string[] {
  return TARGETS.filter((t) => t.bench === bench && (options.part === undefined || t.part === options.part))
    .map((t) => targetLine(t, figures, options.outOfScope?.(t)));
}
