// What every OAuth step gets injected: a fetch (in production the guarded fetch, so every
// address is checked), the process's logger and the transport-security rule. oauth4webapi's own https check is
// all-or-nothing, so it is switched off and this module applies the finer rule instead:
// authorization-server endpoints must use https (MCP 2025-11-25, Communication Security),
// except on loopback hosts, which only local development and tests can reach.
import * as oauth from 'oauth4webapi';
import type { Logger } from '../../platform/logger';
import { InsecureUrlError, UpstreamResponseError } from './errors';
import { isLoopbackHost } from '../../contract/loopback-host';

export { isLoopbackHost } from '../../contract/loopback-host';

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface OAuthHttp {
  fetch: FetchLike;
  /** Allows plain http to any host, not only loopback ones. Never set in production. */
  allowInsecureHttp?: boolean;
  /** The process's logger (debug lines of discovery, unexpected errors); absent: silent. */
  logger?: Logger;
}

/** The options oauth4webapi's request functions take, wired to the injected fetch. */
export function requestOptions(http: OAuthHttp) {
  return {
    [oauth.customFetch]: (url: string, init: oauth.CustomFetchOptions<string, unknown>) =>
      http.fetch(url, init as RequestInit),
    [oauth.allowInsecureRequests]: true,
  };
}

/** Refuses a non-https authorization-server URL unless the host is loopback or insecure is allowed. */
export function assertSecureUrl(url: string | URL, http: Pick<OAuthHttp, 'allowInsecureHttp'>, what: string): URL {
  const parsed = new URL(url);
  if (parsed.protocol === 'https:') return parsed;
  if (parsed.protocol !== 'http:') throw new InsecureUrlError(`the ${what} (${parsed.origin}) must be an https URL`);
  if (http.allowInsecureHttp || isLoopbackHost(parsed.hostname)) return parsed;
  throw new InsecureUrlError(`the ${what} (${parsed.origin}) must use https`);
}

/** Reads a JSON body of at most `limit` bytes; metadata documents are small, a huge one is hostile. */
export async function readJsonLimited(response: Response, limit = 256 * 1024): Promise<unknown> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > limit) {
    await response.body?.cancel();
    throw new UpstreamResponseError(`the document is larger than ${limit} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (let next = await reader?.read(); next && !next.done; next = await reader?.read()) {
    size += next.value.byteLength;
    if (size > limit) {
      await reader?.cancel();
      throw new UpstreamResponseError(`the document is larger than ${limit} bytes`);
    }
    chunks.push(next.value);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export function isJsonContentType(response: Response): boolean {
  const type = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}
