// How a URL that may carry credentials is shown. Connector URLs keep their query as given (some
// MCP servers take their API key there: `https://mcp.example.com/mcp?api_key=...`), and the record
// keeps the full URL, since the service needs it to reach the server. Anywhere else a URL
// appears, one of these two applies:
// - displayUrl: scheme, host, port and path, nothing else. For text a person or a log collector
//   reads: disconnect reasons, probe and OAuth failures, log fields, the consent page, the audit.
// - maskedUrl: the whole URL with the values of secret-named query parameters and the user info
//   masked. For API responses, where a client must still recognise the URL it created.
// Both work on text and on any scheme (mongodb://h1,h2/ and relative references included), since
// what they guard is whatever reaches them, valid URL or not.

/** What a masked value reads as. */
export const MASK = '***';

/**
 * Substrings that make a query parameter's name secret, compared case-insensitively: `key`
 * (api_key, apikey, subscription-key), `token` (access_token, id_token), `secret` (client_secret),
 * `pass`/`pwd` (password, passwd, passphrase), `auth` (auth, authorization, oauth_*), `sig`
 * (sig, signature, X-Amz-Signature, Azure SAS), `credential` (X-Amz-Credential, X-Goog-Credential),
 * `session`, `code` (an OAuth code, an Azure Functions key), `jwt`, `bearer`, `ticket`, `cookie`,
 * `private`. A harmless name caught by a substring (`country_code`) loses only its value.
 */
export const SECRET_NAME_PARTS = [
  'key', 'token', 'secret', 'pass', 'pwd', 'auth', 'sig', 'credential', 'session', 'code', 'jwt', 'bearer', 'ticket', 'cookie', 'private',
] as const;

// RFC 3986 appendix B, with `\` ending the authority as WHATWG reads it for http(s).
const PARTS = /^(?<scheme>[a-z][a-z\d+.-]*:)?(?<authority>\/\/[^/\\?#]*)?(?<path>[^?#]*)(?<rest>.*)$/is;

/** Scheme, host, port and path of a URL: no user info, query or fragment. */
export function displayUrl(url: string | URL): string {
  const { scheme = '', authority = '', path = '' } = PARTS.exec(String(url))?.groups ?? {};
  return `${scheme}${withoutUserInfo(authority, '')}${path}`;
}

/** The URL with user info and the values of secret-named query (and fragment) parameters as `***`. */
export function maskedUrl(url: string | URL): string {
  const { scheme = '', authority = '', path = '', rest = '' } = PARTS.exec(String(url))?.groups ?? {};
  const maskedRest = rest.replace(/([?&#;])([^=&#;]*)=([^&#;]*)/g, (whole, sep: string, name: string) =>
    (isSecretName(name) ? `${sep}${name}=${MASK}` : whole));
  return `${scheme}${withoutUserInfo(authority, `${MASK}@`)}${path}${maskedRest}`;
}

/** Whether a query parameter's name (as written, percent-encoded or not) names a secret. */
export function isSecretName(name: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(name.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return true; // undecodable: it cannot be shown to be harmless
  }
  return SECRET_NAME_PARTS.some((part) => decoded.includes(part));
}

function withoutUserInfo(authority: string, replacement: string): string {
  const at = authority.lastIndexOf('@');
  return at < 0 ? authority : `//${replacement}${authority.slice(at + 1)}`;
}
