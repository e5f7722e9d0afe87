// The DNS-rebinding defence the MCP transport spec asks for, on every path: a request whose
// Origin is present and not the service's own (BASE_URL) or one allowed by
// CONNECTOR__ALLOWED_ORIGINS is refused; with caller authentication off (nothing else stands in
// the way), so is a Host that is neither BASE_URL's host nor an exact loopback literal.
//
// In open loopback mode (callers not authenticated, BASE_URL on a loopback name) `localhost`,
// `127.0.0.1` and `[::1]` on BASE_URL's port are one origin: they are the same listener, a page
// at any of them is one a person on this machine opened, and no DNS name can stand for them.
//
// The Host header is read as sent, not through the URL parser: WHATWG URL turns `127.1` or
// `0x7f.1` into 127.0.0.1, and a name such as `127.attacker.example` must never pass for an
// address (a rebinding page's Host is the attacker's DNS name, whatever address it resolves to).
import type { IncomingHttpHeaders } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';

export interface OriginPolicy {
  baseUrl: string;
  allowedOrigins: readonly string[];
  /** Caller authentication is on: the Host check is left to the credentials. */
  authEnabled: boolean;
}

/** Why the request is refused (a 403 detail), or null when it may go on. */
export function originRefusal(headers: IncomingHttpHeaders, policy: OriginPolicy): string | null {
  const base = parsedBase(policy.baseUrl);
  const origin = headers.origin;
  if (origin !== undefined && !originAllowed(origin, policy)) return 'requests from this Origin are not allowed';
  if (!policy.authEnabled) {
    const host = hostnameOf(headers.host);
    if (host === null || (host !== base.hostname && !isLoopbackLiteral(host))) return 'this Host is not served';
  }
  return null;
}

/** Whether a page at `origin` may call the service (its scripts, its API requests). */
export function originAllowed(origin: string, policy: OriginPolicy): boolean {
  const base = parsedBase(policy.baseUrl);
  if (origin === base.origin || policy.allowedOrigins.includes(origin)) return true;
  return !policy.authEnabled && loopbackOrigins(base).includes(origin);
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** BASE_URL's origin under each loopback name, when BASE_URL is on one; else none. */
export function loopbackOrigins(base: URL): string[] {
  if (!LOOPBACK_NAMES.includes(base.hostname)) return [];
  const port = base.port ? `:${base.port}` : '';
  return LOOPBACK_NAMES.map((name) => `${base.protocol}//${name}${port}`);
}

/**
 * The separate metrics port (CONNECTOR__METRICS_PORT) is scraped by address (a pod's IP, or loopback), never
 * through a DNS name a browser page could rebind: any IP literal, `localhost` or BASE_URL's host.
 */
export function metricsHostRefusal(headers: IncomingHttpHeaders, baseUrl: string): string | null {
  const host = hostnameOf(headers.host);
  if (host === null) return 'this Host is not served';
  if (host === parsedBase(baseUrl).hostname || host === 'localhost' || isIPv4(host)) return null;
  if (host.startsWith('[') && host.endsWith(']') && isIPv6(host.slice(1, -1))) return null;
  return 'this Host is not served';
}

/** `localhost`, a dotted-quad in 127.0.0.0/8, or `[::1]`: the names that cannot be rebound. */
export function isLoopbackLiteral(host: string): boolean {
  if (host === 'localhost' || host === '[::1]') return true;
  // isIPv4 takes dotted-quads only: no `127.1`, no hex, no leading zeros.
  return isIPv4(host) && host.startsWith('127.');
}

// Asked on every request of every path: BASE_URL is parsed once, not per request.
let lastBase: { url: string; parsed: URL } | null = null;
function parsedBase(url: string): URL {
  if (lastBase?.url !== url) lastBase = { url, parsed: new URL(url) };
  return lastBase.parsed;
}

// host [":" port], with an IPv6 literal in brackets (RFC 9110 §7.2); lower-cased.
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/;

/** The host part of a Host header as sent, or null when it is not a well-formed one. */
function hostnameOf(host: string | undefined): string | null {
  if (!host) return null;
  const match = HOST_HEADER.exec(host.toLowerCase());
  if (!match || (match[2] !== undefined && Number(match[2]) > 65535)) return null;
  return match[1]!;
}
