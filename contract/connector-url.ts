// Connector URLs: which schemes are accepted, how a URL is stored (normalised) and how two URLs
// are compared for preset matching.

export const SCHEMES = ['http:', 'https:', 'mcp+stdio:'] as const;

export class InvalidUrlError extends Error {}

/** Lower-case scheme and host, no default port; everything else as given. */
export function normaliseUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new InvalidUrlError('is not an absolute URL');
  }
  if (!(SCHEMES as readonly string[]).includes(url.protocol)) {
    throw new InvalidUrlError(`scheme ${url.protocol.replace(/:$/, '')} is not supported (use http, https or mcp+stdio)`);
  }
  if (!url.hostname) throw new InvalidUrlError('has no host');
  if (url.username || url.password) throw new InvalidUrlError('must not carry credentials');
  if (url.hash) throw new InvalidUrlError('must not have a fragment');
  // WHATWG leaves the host of a non-special scheme (mcp+stdio) as written.
  if (url.protocol === 'mcp+stdio:') url.hostname = url.hostname.toLowerCase();
  return url.toString().replace(/^(mcp\+stdio:\/\/[^/?#]*)\/$/, '$1');
}

/** The comparison key for preset matching: normalised, trailing slash ignored. */
export function matchKey(input: string): string {
  const url = new URL(normaliseUrl(input));
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url.toString().replace(/\/$/, '').replace(/\/\?/, '?');
}

export function isStdioUrl(url: string): boolean {
  return url.startsWith('mcp+stdio:');
}
