// Where one proxied request goes: the connector's target URL, plus the caller's query string.
// The caller's path is never used (see mcp-path.ts), and the caller cannot override a query
// parameter that the target URL itself sets (it may carry a tenant or an API version).
import { ProblemError } from '../contract/problem';

export interface UpstreamTarget {
  protocol: 'http:' | 'https:';
  /** Host name or IP literal as sockets want it (IPv6 without brackets). */
  hostname: string;
  port: number;
  /** Value for the Host header: as in the URL, default port omitted. */
  host: string;
  /** Path and query sent upstream. */
  path: string;
  /** scheme://host:port, safe to log (no path or query, which may carry secrets). */
  origin: string;
}

type Base = Omit<UpstreamTarget, 'path'> & { pathname: string; search: string };

/** Parsed targets, so the hot path does not parse the same URL on every request. */
const parsed = new Map<string, Base>();
const MAX_PARSED = 1000;

export function upstreamTarget(target: string, callerQuery: string): UpstreamTarget {
  const base = parsed.get(target) ?? parseTarget(target);
  return {
    protocol: base.protocol,
    hostname: base.hostname,
    port: base.port,
    host: base.host,
    origin: base.origin,
    path: base.pathname + mergeQuery(base.search, callerQuery),
  };
}

function parseTarget(target: string): Base {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new ProblemError(502, 'The connector has no usable upstream URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProblemError(502, 'The connector has no usable upstream URL.');
  }
  const base: Base = {
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
    host: url.host,
    origin: url.origin,
    pathname: url.pathname,
    search: url.search,
  };
  if (parsed.size >= MAX_PARSED) parsed.clear();
  parsed.set(target, base);
  return base;
}

// Slashes in the query are percent-encoded because http-proxy joins paths by collapsing every
// '//' it finds, query included; decoders read %2F and '/' alike in a query.
function mergeQuery(targetSearch: string, callerQuery: string): string {
  if (callerQuery.length <= 1) return targetSearch.replace(/\//g, '%2F');
  const merged = new URLSearchParams(targetSearch);
  const fixed = new Set(merged.keys());
  for (const [key, value] of new URLSearchParams(callerQuery)) {
    if (!fixed.has(key)) merged.append(key, value);
  }
  const query = merged.toString();
  return query ? `?${query}` : '';
}
