// Issue 42's performance targets, declared once as data: which bench measures each, the ratio of
// two of its paths' figures of the same run, the threshold and its direction. The benches hand
// in what they measured and print one line per target: PASS, FAIL, or NOT MEASURED when a figure
// is missing (a path the run did not make, or no requests counted), never a figure made up.

/** A path's figure in a bench's run. */
export type Figure = 'req/s' | 'CPU µs/req' | 'CPU µs/call';

export interface IssueTarget {
  /** "42.1a": the issue, the target's number there, a letter when it has several lines. */
  id: string;
  bench: 'proxy' | 'toolset';
  what: string;
  figure: Figure;
  /** The path whose figure is judged, and the baseline path of the same run it is divided by. */
  of: string;
  to: string;
  direction: 'at most' | 'at least';
  threshold: number;
}

export const TARGETS: readonly IssueTarget[] = [
  // 1: ahead of the fastest peer, a Go relay of TBXark mcp-proxy's kind (bench/go-relay).
  { id: '42.1a', bench: 'proxy', what: 'throughput, embedded stack (npm start, API key) / Go relay (mcp-go)', figure: 'req/s', of: 'embedded-key', to: 'go-relay', direction: 'at least', threshold: 1 },
  { id: '42.1b', bench: 'proxy', what: 'CPU per request, embedded stack (npm start, API key) / Go relay (mcp-go)', figure: 'CPU µs/req', of: 'embedded-key', to: 'go-relay', direction: 'at most', threshold: 1 },
  // 2: the proxy role close to the floor of its stack (node:http + http-proxy).
  { id: '42.2a', bench: 'proxy', what: 'CPU per request, proxy role (API key) / floor (node:http + http-proxy)', figure: 'CPU µs/req', of: 'proxy-key', to: 'floor', direction: 'at most', threshold: 1.2 },
  { id: '42.2b', bench: 'proxy', what: 'CPU per request, proxy role (JWT) / floor (node:http + http-proxy)', figure: 'CPU µs/req', of: 'proxy-jwt', to: 'floor', direction: 'at most', threshold: 1.2 },
  // 4: a call through a toolset close to the same call on its member's own MCP path.
  { id: '42.4', bench: 'toolset', what: 'CPU per call, toolset / member\'s own MCP path', figure: 'CPU µs/call', of: 'toolset', to: 'member path', direction: 'at most', threshold: 1.3 },
];

export type Verdict = 'PASS' | 'FAIL' | 'NOT MEASURED';

/** A path's figure, or undefined when the run has none. */
export type Figures = (path: string, figure: Figure) => number | undefined;

const usable = (value: number | undefined): value is number => value !== undefined && Number.isFinite(value) && value > 0;

/** The ratio the target judges, or undefined when either figure is missing. */
export function ratioOf(target: IssueTarget, figures: Figures): number | undefined {
  const [of, to] = [figures(target.of, target.figure), figures(target.to, target.figure)];
  return usable(of) && usable(to) ? of / to : undefined;
}

export function judge(target: IssueTarget, ratio: number | undefined): Verdict {
  if (ratio === undefined || !Number.isFinite(ratio)) return 'NOT MEASURED';
  return (target.direction === 'at most' ? ratio <= target.threshold : ratio >= target.threshold) ? 'PASS' : 'FAIL';
}

/** One line: the ratio, both figures, the threshold, the verdict. */
export function targetLine(target: IssueTarget, figures: Figures): string {
  const ratio = ratioOf(target, figures);
  const verdict = judge(target, ratio);
  const limit = `${target.direction === 'at most' ? '<=' : '>='} ${target.threshold}`;
  if (verdict === 'NOT MEASURED') {
    const missing = [target.of, target.to].filter((path) => !usable(figures(path, target.figure)));
    return `TARGET ${target.id} ${target.what}: (${limit}) NOT MEASURED (no ${target.figure} of ${missing.join(', ')} measured here)`;
  }
  const [of, to] = [figures(target.of, target.figure)!, figures(target.to, target.figure)!];
  return `TARGET ${target.id} ${target.what}: ${ratio!.toFixed(2)}× (${of.toFixed(0)} / ${to.toFixed(0)} ${target.figure}) (${limit}) ${verdict}`;
}

/** The lines of every target one bench measures. */
export function benchTargetLines(bench: IssueTarget['bench'], figures: Figures): string[] {
  return TARGETS.filter((t) => t.bench === bench).map((t) => targetLine(t, figures));
}
