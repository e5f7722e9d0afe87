// Hostile request targets: every endpoint with malformed ids, traversal, double and encoded
// slashes, unsupported methods, abusive query strings and headers, and the MCP path. Paths are
// raw request targets (undici sends them as written), so `..` and `%2F` reach the server intact.
import { METHODS } from 'node:http';
import { ASCII_PRINTABLE, MIXED_TEXT, type Random } from './hostile-random';
import type { HostileCase } from './hostile-send';

export interface KnownConnectors {
  /** A connector in `created` (one audit event): connect takes a body, the MCP path answers 409. */
  createdId: string;
}

const API = '/api/v1/connectors';
const JSON_TYPE = { 'content-type': 'application/json' };

/** The endpoints that take an id, with the method each answers. */
const ID_ENDPOINTS: { method: string; path: (id: string) => string; mcp?: boolean }[] = [
  { method: 'GET', path: (id) => `${API}/${id}` },
  { method: 'DELETE', path: (id) => `${API}/${id}` },
  { method: 'POST', path: (id) => `${API}/${id}/connect` },
  { method: 'POST', path: (id) => `${API}/${id}/disconnect` },
  { method: 'GET', path: (id) => `${API}/${id}/events` },
  { method: 'GET', path: (id) => `${API}/${id}/mcp`, mcp: true },
  { method: 'POST', path: (id) => `${API}/${id}/mcp`, mcp: true },
  { method: 'DELETE', path: (id) => `${API}/${id}/mcp`, mcp: true },
];

/** Every method Node's parser accepts except the ones the API routes and CONNECT (a tunnel, not a request). */
export const UNSUPPORTED_METHODS = METHODS.filter((m) => !['GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS', 'CONNECT'].includes(m));

/** Ids that are not ids: each must read as "no such connector", never reach anything else. */
export function malformedIds(random: Random, count: number): string[] {
  const fixed = [
    '..', '.', '...', '..%2F', '..%2F..%2Fetc%2Fpasswd', '%2e%2e', '%2E%2E%2F%2E%2E', '..%5C..%5Cwindows', '%00', `${random.uuid()}%00`,
    `%00${random.uuid()}`, '%ZZ', '%', '%E0%A4%A', '%C0%AE%C0%AE', '%FF%FE', '%E9', encodeURIComponent('ü😀中'),
    random.uuid().toUpperCase(), random.uuid().replace(/-/g, ''), `%7B${random.uuid()}%7D`, '00000000-0000-0000-0000-000000000000',
    'c232ab00-9414-11ec-b3c8-9e6bdeced846', `${random.uuid()}x`, ` ${random.uuid()}`.replace(' ', '%20'), `${random.uuid()}%0A`,
    '__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'null', 'undefined', 'NaN', '0', '-1', '1e400',
    '%7B%22%24gt%22%3A%22%22%7D', '$where', '*', '%2A', ';', "'", '%22', '%3Cscript%3E', '\\', '%5C', '~', '@', ':', '%3F', '%23',
    '0'.repeat(7000), random.uuid().repeat(150), encodeURIComponent('é'.repeat(600)),
  ];
  const safe = ASCII_PRINTABLE.filter((c) => !' /?#'.includes(c));
  const random_ = Array.from({ length: count }, (_, i) => {
    if (i % 4 === 0) return random.uuid(); // well-formed, unknown
    if (i % 4 === 1) return encodeURIComponent(random.string(random.int(1, 60), MIXED_TEXT));
    if (i % 4 === 2) return random.string(random.int(1, 80), safe);
    // Raw bytes as percent-escapes: raw non-ASCII in a request target is refused by Node's parser
    // before the service sees it (see the parser-level test).
    return [...random.bytes(random.int(1, 40))].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  });
  return [...fixed, ...random_];
}

export function idCases(random: Random, count: number): HostileCase[] {
  const out: HostileCase[] = [];
  for (const id of malformedIds(random, count)) {
    for (const e of ID_ENDPOINTS) {
      const body = e.method === 'POST' ? '{}' : undefined;
      out.push({ name: `malformed id ${e.mcp ? '(mcp)' : ''}`, method: e.method, path: e.path(id), headers: body ? JSON_TYPE : undefined, body, expect: [404] });
    }
  }
  return out;
}

/** Traversal, double and encoded slashes, other prefixes: nothing but 404 (or 405 where a route matches). */
export function structuralPathCases(random: Random, known: KnownConnectors): HostileCase[] {
  const id = known.createdId;
  const notFound = [
    '/../../etc/passwd', `${API}/../../../etc/passwd`, '/api/v1/%2e%2e/%2e%2e/etc/passwd', `${API}/%2e%2e%2f%2e%2e%2fhealthz`,
    '//api/v1/connectors', '/api//v1/connectors', `${API}//${id}`, `${API}/${id}//connect`, `${API}/${id}/connect/`,
    '///', '/api%2Fv1%2Fconnectors', `${API}%2F${id}`, `${API}/${id}%2Fconnect`, `${API}/${id}%2fevents`, `${API}/${id}/mcp/extra`,
    `${API}/${id}/mcp%2F..%2F..%2Fconnect`, '/api/v2/connectors', '/api/v1', '/api', '/api/v1/connector', `${API}s`,
    `${API}/presets/x`, `${API}/oauth`, '/api/v1/openapi.json/x', '/healthz/x', '/readyz/..', '/%00', '/%FF', '/.env', '/.git/config',
    `${API}/${id}/connect/../disconnect`, `${API}/${id}/./events`, `${API}/${id}/events/x`, '/*', '/%2A', `/${'a/'.repeat(2000)}`,
  ];
  const out: HostileCase[] = notFound.map((path) => ({ name: 'structural path', method: 'GET', path, expect: [404, 405] }));
  const segment = ASCII_PRINTABLE.filter((c) => !' /?#'.includes(c));
  for (let i = 0; i < 150; i++) {
    const segments = Array.from({ length: random.int(1, 6) }, () => random.string(random.int(0, 20), segment));
    const prefix = random.pick(['', '/api', '/api/v1', API]);
    out.push({ name: 'random path', method: random.pick(['GET', 'POST', 'DELETE']), path: `${prefix}/x${segments.join('/')}`, expect: [404, 405] });
  }
  return out;
}

/** Unsupported methods on every route (405 with Allow) and on paths that do not exist (404). */
export function methodCases(random: Random, known: KnownConnectors): HostileCase[] {
  const paths = [
    API, `${API}/${known.createdId}`, `${API}/${known.createdId}/connect`, `${API}/${known.createdId}/disconnect`,
    `${API}/${known.createdId}/events`, `${API}/presets`, '/api/v1/openapi.json', '/healthz', '/readyz',
  ];
  const out: HostileCase[] = [];
  for (const path of paths) {
    // PATCH /connectors/{id} is a route (approval rules); `presets` there is an id that does not exist.
    const patchRouted = path === `${API}/${known.createdId}` || path === `${API}/presets`;
    for (const method of UNSUPPORTED_METHODS) if (!(patchRouted && method === 'PATCH')) out.push({ name: 'unsupported method', method, path, expect: [405] });
    out.push({ name: 'OPTIONS', method: 'OPTIONS', path, expect: [200, 204] });
  }
  for (const path of [`${API}/${random.uuid()}/mcp`, `${API}/${known.createdId}/mcp`]) {
    for (const method of [...UNSUPPORTED_METHODS, 'HEAD', 'OPTIONS']) out.push({ name: 'unsupported method (mcp)', method, path, expect: [405] });
  }
  for (let i = 0; i < 40; i++) {
    out.push({ name: 'method on a missing path', method: random.pick(UNSUPPORTED_METHODS), path: `/nowhere/${random.int(0, 1e6)}`, expect: [404] });
  }
  return out;
}

/** Query strings for the two listings: repeated, unknown, huge, malformed, bad page tokens. */
export function queryCases(random: Random, known: KnownConnectors): HostileCase[] {
  const token = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
  const refused = [
    'limit=1&limit=2', 'state=created&state=connected', 'page_token=a&page_token=b', 'limit=', 'limit=0', 'limit=-1', 'limit=101',
    'limit=1.5', 'limit=abc', 'limit=NaN', 'limit=Infinity', `limit=${'9'.repeat(400)}`, 'limit=%00', 'limit=1%00', 'limit=[]',
    'state=nope', 'state=CREATED', 'state=', 'state=%00', `state=${'x'.repeat(5000)}`, 'foo=bar', '__proto__=x', 'constructor=x',
    'toString=x', 'limit[]=1', 'limit[$gt]=0', 'a=1&b=2&c=3', `page_token=${'A'.repeat(600)}`, 'page_token=%ZZ', 'page_token=%00',
    `page_token=${token('{"k":1,"id":"x"}')}`, `page_token=${token({ k: 'a' })}`, `page_token=${token([])}`, `page_token=${token('"str"')}`,
    `page_token=${token('null')}`, `page_token=${token({ k: { $gt: '' }, id: 'x' })}`, `page_token=${token({ k: 'a', id: { $ne: 1 } })}`,
    `${'x'.repeat(3000)}=1`, `%ZZ=1`, `${encodeURIComponent('ü😀')}=1`,
  ];
  const accepted = ['', '&&&', 'limit=05', 'limit=+5', 'page_token='];
  // Well-formed page tokens that no page issued: harmless, an empty or shorter page. Not for the
  // events listing, whose position is a number (see its own test).
  const acceptedForList = [
    `page_token=${token({ k: 'zzzz', id: 'x' })}`, `page_token=${token({ k: '$gt', id: '{"$ne":1}' })}`,
    `page_token=${token({ k: '', id: '' })}`, `page_token=${token({ k: '\u0000', id: '\u00ff' })}`,
  ];
  const out: HostileCase[] = [];
  for (const base of [API, `${API}/${known.createdId}/events`]) {
    const events = base !== API;
    for (const q of refused) {
      // The events listing has no state filter: state=... is an unknown parameter there, also 422.
      out.push({ name: 'bad query', method: 'GET', path: `${base}?${q}`, expect: [422] });
    }
    for (const q of events ? accepted : [...accepted, ...acceptedForList]) {
      out.push({ name: 'odd but valid query', method: 'GET', path: `${base}?${q}`, expect: [200] });
    }
    for (let i = 0; i < 60; i++) {
      // Kept under Node's 16 KiB header limit, past which Node answers 431 before the service sees it.
      const params = Array.from({ length: random.int(1, 20) }, () => `${random.pick(['limit', 'state', 'page_token', 'x', '__proto__', 'a[b]'])}=${encodeURIComponent(random.string(random.int(0, 40), MIXED_TEXT))}`);
      out.push({ name: 'random query', method: 'GET', path: `${base}?${params.join('&')}`, expect: [200, 422] });
    }
    for (let i = 0; i < 20; i++) {
      out.push({ name: 'random page token', method: 'GET', path: `${base}?page_token=${random.bytes(random.int(1, 300)).toString('base64url')}`, expect: [422] });
    }
  }
  return out;
}

/** Abusive headers on ordinary requests: each request stays what it was (its usual answer). */
export function headerCases(random: Random, known: KnownConnectors): HostileCase[] {
  const value = () => random.string(random.int(0, 2000), ASCII_PRINTABLE);
  const latin1 = () => random.bytes(random.int(1, 200)).toString('latin1').replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, 'x');
  const makers: (() => Record<string, string>)[] = [
    () => ({ host: random.pick(['evil.example', '127.0.0.1:1', 'a'.repeat(250), '[::1]:99999', '%00']) }),
    () => ({ accept: random.pick(['application/xml', 'text/event-stream', '*/*;q=foo', value()]) }),
    () => ({ 'accept-encoding': random.pick(['gzip;q=2', 'br, zstd, *', value()]) }),
    () => ({ authorization: random.pick(['Bearer', 'Bearer ' + 'x'.repeat(4000), 'Basic %%%', `Digest ${value()}`]) }),
    () => ({ cookie: value(), origin: random.pick(['null', 'http://evil.example', value()]) }),
    () => ({ prefer: random.pick(['respond-async', 'return=minimal', value(), 'respond-async, wait=-1']) }),
    () => ({ 'x-forwarded-for': random.pick(['127.0.0.1', '::1', value()]), 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'gopher' }),
    () => ({ 'x-http-method-override': random.pick(['DELETE', 'PUT', 'TRACE']) }),
    () => ({ 'if-none-match': value(), 'if-modified-since': value(), range: 'bytes=0-1,2-3,-5' }),
    () => ({ 'x-latin1': latin1(), 'user-agent': latin1() }),
    () => Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`x-h${i}`, random.string(random.int(0, 100), ASCII_PRINTABLE)])),
    () => ({ 'mcp-session-id': value(), 'mcp-protocol-version': value(), 'last-event-id': value() }),
  ];
  const requests: { method: string; path: string; body?: string; expect: readonly number[] }[] = [
    { method: 'GET', path: `${API}/${random.uuid()}`, expect: [404] },
    { method: 'POST', path: API, body: '{"url":1}', expect: [422] },
    { method: 'POST', path: `${API}/${known.createdId}/connect`, body: '{"access_token":1}', expect: [422] },
    { method: 'POST', path: `${API}/${known.createdId}/disconnect`, expect: [409] },
    { method: 'GET', path: `${API}?limit=0`, expect: [422] },
    { method: 'POST', path: `${API}/${random.uuid()}/mcp`, body: '{}', expect: [404] },
    { method: 'GET', path: `${API}/${known.createdId}/mcp`, expect: [409] },
  ];
  const out: HostileCase[] = [];
  for (let i = 0; i < 250; i++) {
    const r = requests[i % requests.length]!;
    const headers: Record<string, string> = { ...(r.body ? JSON_TYPE : {}), ...random.pick(makers)() };
    // A foreign Origin, or (with caller authentication off) a Host that is not the service's or
    // a loopback name, is refused before anything else: the DNS-rebinding defence.
    const foreign = headers.origin !== undefined || (headers.host !== undefined && headers.host !== '127.0.0.1:1');
    out.push({ name: `hostile headers ${Object.keys(headers).slice(0, 3).join(',')}`, method: r.method, path: r.path, headers, body: r.body, expect: foreign ? [403] : r.expect });
  }
  return out;
}

/**
 * The MCP path: a DELETE that carries a body is refused at the door (400, before any lookup, so the
 * same for every id: proxy/request-framing.ts); otherwise unknown ids answer 404 and a connector
 * that is not connected 409, whatever the request.
 */
export function mcpCases(random: Random, known: KnownConnectors): HostileCase[] {
  const bodies = [
    '{}', '[]', 'null', '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}', '{"jsonrpc":"2.0","method":"tools/call"', '\u0000\u0001',
    '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]', '{"__proto__":{"polluted":"yes"}}',
  ];
  const types = ['application/json', 'text/plain', 'application/x-www-form-urlencoded', 'text/event-stream', ''];
  const out: HostileCase[] = [];
  for (let i = 0; i < 300; i++) {
    const connected = i % 3 === 0;
    const id = connected ? known.createdId : random.pick([random.uuid(), random.uuid().toUpperCase(), encodeURIComponent(random.string(10, MIXED_TEXT))]);
    const method = random.pick(['GET', 'POST', 'DELETE', 'POST']);
    const body = method === 'GET' ? undefined : random.chance(0.3) ? random.bytes(random.int(0, 5000)) : random.pick(bodies);
    const headers: Record<string, string> = { accept: random.pick(['application/json, text/event-stream', 'text/event-stream', '*/*', 'x/y']) };
    const type = random.pick(types);
    if (body !== undefined && type) headers['content-type'] = type;
    if (random.chance(0.3)) headers['mcp-session-id'] = random.string(random.int(1, 100), ASCII_PRINTABLE.filter((c) => c !== ' '));
    const suffix = random.pick(['', '/', `?${random.string(5, ['a', '=', '&', '%', '1'])}`]);
    const framingRefused = method === 'DELETE' && body !== undefined && body.length > 0;
    const expect = framingRefused ? [400] : connected ? [409] : [404];
    out.push({ name: `mcp ${connected ? 'not connected' : 'unknown id'}`, method, path: `${API}/${id}/mcp${suffix}`, headers, body, expect });
  }
  return out;
}
