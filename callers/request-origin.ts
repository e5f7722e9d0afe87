// The DNS-rebinding defence the MCP transport spec asks for, on every path: a request whose
// Origin is present and not the service's own (BASE_URL) or one allowed by
// CONNECTOR__ALLOWED_ORIGINS is refused; with caller authentication off (nothing else stands in
// the way), so is a Host that is neither BASE_URL's host nor a loopback name.
import type { IncomingHttpHeaders } from 'node:http';

export interface OriginPolicy {
  baseUrl: string;
  allowedOrigins: readonly string[];
  /** Caller authentication is on: the Host check is left to the credentials. */
  authEnabled: boolean;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why the request is refused (a 403 detail), or null when it may go on. */
export function originRefusal(headers: IncomingHttpHeaders, policy: OriginPolicy): string | null {
  const base = parsedBase(policy.baseUrl);
  const origin = headers.origin;
  if (origin !== undefined && origin !== base.origin && !policy.allowedOrigins.includes(origin)) {
    return 'requests from this Origin are not allowed';
  }
  if (!policy.authEnabled) {
    const host = hostnameOf(headers.host);
    if (host === null || (host !== base.hostname && !LOOPBACK_HOSTS.has(host) && !host.startsWith('127.'))) {
      return 'this Host is not served';
    }
  }
  return null;
}

// Asked on every request of every path: BASE_URL is parsed once, not per request.
let lastBase: { url: string; parsed: URL } | null = null;
function parsedBase(url: string): URL {
  if (lastBase?.url !== url) lastBase = { url, parsed: new URL(url) };
  return lastBase.parsed;
}

function hostnameOf(host: string | undefined): string | null {
  if (!host) return null;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
}
