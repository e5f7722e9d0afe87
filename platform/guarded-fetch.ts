// A fetch for every URL the service contacts on someone else's word: metadata URLs from headers
// and documents, OAuth endpoints, MCP servers. Names are checked inside the connection's DNS
// lookup (so a name that re-resolves to a forbidden address is refused too); literal IPs never
// reach a lookup, so they are checked here before connecting. Redirects are followed by hand,
// at most `maxRedirects`, so that every hop passes the same checks.
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import net from 'node:net';
import { checkHost, guardedLookup, type AddressPolicy } from './address-guard';
import { RedirectRefusedError } from './network-policy-errors';

export interface GuardedFetchOptions {
  /** Whole exchange, redirects and body included. */
  timeoutMs?: number;
  maxRedirects?: number;
}

export interface GuardedFetch {
  (input: string | URL, init?: RequestInit): Promise<Response>;
  /** Closes the pooled connections. */
  close(): Promise<void>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CROSS_ORIGIN_DROPPED = ['authorization', 'cookie', 'proxy-authorization'];

export function createGuardedFetch(policy: AddressPolicy, options: GuardedFetchOptions = {}): GuardedFetch {
  const { timeoutMs = 10_000, maxRedirects = 5 } = options;
  const agent = new Agent({ connect: { lookup: guardedLookup(policy) } });

  const guarded = async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    let request = { url: new URL(input), method: (init.method ?? 'GET').toUpperCase(), headers: new Headers(init.headers), body: init.body };
    for (let hop = 0; ; hop++) {
      await refuseForbiddenLiteral(request.url, policy);
      const response = (await undiciFetch(request.url, {
        ...(init as UndiciRequestInit),
        method: request.method,
        headers: request.headers as UndiciRequestInit['headers'],
        body: request.body as UndiciRequestInit['body'],
        signal,
        redirect: 'manual',
        dispatcher: agent,
      })) as unknown as Response;
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || !location || init.redirect === 'manual') return response;
      await response.body?.cancel();
      if (init.redirect === 'error') throw new RedirectRefusedError('not-allowed', `${request.url.origin} answered with a redirect where none is allowed`);
      if (hop >= maxRedirects) throw new RedirectRefusedError('too-many', `more than ${maxRedirects} redirects from ${new URL(input).origin}`);
      request = nextHop(request, response.status, new URL(location, request.url));
    }
  };
  return Object.assign(guarded, { close: () => agent.close() });
}

type Hop = { url: URL; method: string; headers: Headers; body: RequestInit['body'] };

/** The request for the next hop, with the method and header rules browsers apply. */
function nextHop(current: Hop, status: number, url: URL): Hop {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RedirectRefusedError('scheme', `${current.url.origin} redirected to a ${url.protocol} URL`);
  }
  if (current.url.protocol === 'https:' && url.protocol === 'http:') {
    throw new RedirectRefusedError('insecure', `${current.url.origin} redirected from https to plain http (${url.origin})`);
  }
  const headers = new Headers(current.headers);
  if (url.origin !== current.url.origin) for (const name of CROSS_ORIGIN_DROPPED) headers.delete(name);
  const toGet = status === 303 ? current.method !== 'HEAD' : (status === 301 || status === 302) && current.method === 'POST';
  if (!toGet) return { url, method: current.method, headers, body: current.body };
  headers.delete('content-type');
  headers.delete('content-length');
  return { url, method: 'GET', headers, body: undefined };
}

/** Literal addresses skip DNS, so the connection's lookup never sees them: check them here. */
async function refuseForbiddenLiteral(url: URL, policy: AddressPolicy): Promise<void> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (net.isIP(host)) await checkHost(host, policy);
}
