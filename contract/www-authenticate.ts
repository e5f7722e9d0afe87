// WWW-Authenticate parsing (RFC 9110 section 11.6.1): a header may hold several challenges, and
// several headers arrive joined by commas, so a comma can end a parameter or a challenge. A new
// challenge starts where a token is followed by a space and not by "=". Quoted strings may hold
// commas, "=" and backslash escapes.

export interface Challenge {
  /** Lower-case auth scheme, e.g. "bearer". */
  scheme: string;
  /** Parameters with lower-case names; the first occurrence of a name wins. */
  params: Record<string, string>;
  token68?: string;
}

/**
 * What an MCP server's Bearer challenge said when it asked for authorization through the proxy:
 * kept by the connector so that the next connect authorizes with it, even where the server
 * lets the connect's unauthenticated `initialize` through.
 */
export interface AuthChallenge {
  resourceMetadata: string | null;
  scope: string | null;
}

/** What an MCP client needs from a Bearer challenge (RFC 6750 section 3, RFC 9728 section 5.1). */
export interface BearerChallenge {
  resourceMetadata: string | null;
  scope: string | null;
  error: string | null;
  errorDescription: string | null;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*(?=\s*(,|$))/;

export function parseWwwAuthenticate(header: string): Challenge[] {
  const challenges: Challenge[] = [];
  const cursor = { rest: header };
  while (skip(cursor, /^[\s,]+/), cursor.rest.length > 0) {
    const scheme = take(cursor, TOKEN);
    if (!scheme) break; // garbage: keep what was understood so far
    const challenge: Challenge = { scheme: scheme.toLowerCase(), params: {} };
    challenges.push(challenge);
    if (!skip(cursor, /^ +/)) continue;
    const token68 = startsParam(cursor.rest) ? null : take(cursor, TOKEN68);
    if (token68) challenge.token68 = token68;
    else readParams(cursor, challenge.params);
  }
  return challenges;
}

/**
 * The first Bearer challenge of a header, else its first DPoP one (RFC 9449 section 7.1: the same
 * parameters, from a server that takes DPoP-bound tokens), or null when there is neither.
 */
export function findBearerChallenge(header: string | null): BearerChallenge | null {
  if (!header) return null;
  const challenges = parseWwwAuthenticate(header);
  const bearer = challenges.find((c) => c.scheme === 'bearer') ?? challenges.find((c) => c.scheme === 'dpop');
  if (!bearer) return null;
  const value = (name: string) => (bearer.params[name] ? bearer.params[name] : null);
  return {
    resourceMetadata: value('resource_metadata'),
    scope: value('scope'),
    error: value('error'),
    errorDescription: value('error_description'),
  };
}

function readParams(cursor: { rest: string }, params: Record<string, string>): void {
  while (startsParam(cursor.rest)) {
    const name = take(cursor, TOKEN)!.toLowerCase();
    skip(cursor, /^\s*=\s*/);
    const value = cursor.rest.startsWith('"') ? takeQuoted(cursor) : take(cursor, TOKEN) ?? '';
    if (!(name in params)) params[name] = value;
    skip(cursor, /^\s*/);
    if (!cursor.rest.startsWith(',')) return;
    const afterComma = cursor.rest.replace(/^[\s,]+/, '');
    if (!startsParam(afterComma)) return; // the next challenge begins
    cursor.rest = afterComma;
  }
}

function startsParam(text: string): boolean {
  return /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\s*=(?!=*\s*(,|$))/.test(text);
}

function takeQuoted(cursor: { rest: string }): string {
  let value = '';
  let i = 1;
  for (; i < cursor.rest.length && cursor.rest[i] !== '"'; i++) {
    if (cursor.rest[i] === '\\' && i + 1 < cursor.rest.length) i++;
    value += cursor.rest[i];
  }
  cursor.rest = cursor.rest.slice(i + 1);
  return value;
}

function take(cursor: { rest: string }, pattern: RegExp): string | null {
  const match = pattern.exec(cursor.rest);
  if (!match) return null;
  cursor.rest = cursor.rest.slice(match[0].length);
  return match[0];
}

function skip(cursor: { rest: string }, pattern: RegExp): boolean {
  return take(cursor, pattern) !== null;
}
