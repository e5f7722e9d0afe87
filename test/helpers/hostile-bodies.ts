// Hostile request bodies for the two endpoints that read one (create, connect): random bytes,
// broken JSON, deep nesting, huge strings, wrong types for every field, prototype-pollution
// keys, bodies over the limit, wrong content types and encodings. Each carries the statuses the
// contract allows for it; none of them is a valid request.
import { gzipSync, brotliCompressSync } from 'node:zlib';
import { ASCII_PRINTABLE, MIXED_TEXT, type Random } from './hostile-random';

export interface HostileBody {
  name: string;
  body: string | Buffer | (() => AsyncIterable<Buffer>);
  headers: Record<string, string>;
  expect: readonly number[];
}

export interface BodyLimits {
  /** The service's CONNECTOR__BODY_LIMIT in bytes. */
  bodyLimit: number;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const SYNTAX = [400] as const;
const INVALID = [422] as const;

/** Wrong values for any field: none is a string, so every string field refuses them. */
const NOT_STRINGS: unknown[] = [null, 0, -1, 1.5, 1e308, -0, true, false, [], ['x'], {}, { a: 'b' }, [[[]]], [null]];

const WRONG_BY_FIELD: Record<string, Record<string, unknown[]>> = {
  create: {
    url: [
      ...NOT_STRINGS, '', ' ', 'not a url', 'ftp://x.example', 'javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd',
      'http://', 'http://[::1', 'ws://x.example', '//x.example', 'https://u:p@x.example/', 'https://x.example/#frag',
      'mcp+stdio://no-such-preset', `http://x.example/${'a'.repeat(2100)}`, 'http://\u0000x.example', 'http://x .example',
    ],
    client_id: [...NOT_STRINGS, '', 'c'.repeat(513)],
    client_secret: [...NOT_STRINGS, '', 's'.repeat(2049), 'alone-without-client-id'],
    metadata: [
      ...NOT_STRINGS.filter((v) => !(v && typeof v === 'object' && !Array.isArray(v))), 'x', { name: 1 }, { name: null }, { name: ['x'] },
      { name: { nested: 'x' } }, { '': 'empty key' }, { ['k'.repeat(65)]: 'v' }, { k: 'v'.repeat(513) },
      Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])),
    ],
    match_preset: [null, 0, 1, 'true', 'false', '', [], {}, [true]],
  },
  connect: {
    access_token: [...NOT_STRINGS, '', 't'.repeat(16385)],
    redirect_url: [
      ...NOT_STRINGS, '', 'not a url', 'javascript:alert(1)', 'data:text/html,x', 'ftp://x.example/', 'file:///etc/passwd',
      '//x.example/cb', `https://x.example/${'a'.repeat(2100)}`,
    ],
  },
};

/** A body the schema accepts, made invalid by exactly one wrong field. */
const BASE: Record<string, Record<string, unknown>> = {
  create: { url: 'http://hostile.invalid/mcp', metadata: { name: 'base' } },
  connect: {},
};

export function hostileBodies(endpoint: 'create' | 'connect', random: Random, limits: BodyLimits): HostileBody[] {
  return [
    ...wrongTypes(endpoint),
    ...unknownKeys(endpoint, random),
    ...randomBytes(random, 60),
    ...brokenJson(endpoint, random, 120),
    ...deepNesting(random, limits, 40),
    ...hugeStrings(endpoint, random, 30),
    ...prototypePollution(endpoint),
    ...oversized(random, limits, 12),
    ...wrongContentTypes(endpoint, random),
    ...encodings(endpoint),
  ];
}

function json(name: string, value: unknown, expect: readonly number[]): HostileBody {
  return { name, body: JSON.stringify(value), headers: JSON_TYPE, expect };
}

/** Every field with every wrong value, alone; then random pairs of wrong fields. */
function wrongTypes(endpoint: 'create' | 'connect'): HostileBody[] {
  const out: HostileBody[] = [];
  for (const [field, values] of Object.entries(WRONG_BY_FIELD[endpoint]!)) {
    for (const value of values) {
      // A client secret is only wrong without a client id, so the base leaves the id out.
      out.push(json(`wrong-type ${field}=${JSON.stringify(value).slice(0, 40)}`, { ...BASE[endpoint], [field]: value }, INVALID));
    }
  }
  const fields = Object.entries(WRONG_BY_FIELD[endpoint]!);
  for (const [a, av] of fields) {
    for (const [b, bv] of fields) {
      if (a >= b) continue;
      for (let i = 0; i < Math.min(av.length, bv.length); i += 3) {
        out.push(json(`wrong-type pair ${a},${b}`, { ...BASE[endpoint], [a]: av[i], [b]: bv[i] }, INVALID));
      }
    }
  }
  return out;
}

function unknownKeys(endpoint: 'create' | 'connect', random: Random): HostileBody[] {
  const keys = ['id', 'state', 'URL', 'Url', 'url ', ' url', 'token', 'accessToken', '$where', '$set', 'a.b', '\u0000', 'ü', 'prototype', 'toString', 'valueOf'];
  const out = keys.map((k) => json(`unknown key ${JSON.stringify(k)}`, { ...BASE[endpoint], [k]: 'x' }, INVALID));
  for (let i = 0; i < 20; i++) {
    const key = random.string(random.int(1, 40), MIXED_TEXT);
    out.push(json('unknown random key', { ...BASE[endpoint], [`x${key}`]: random.string(5, ASCII_PRINTABLE) }, INVALID));
  }
  return out;
}

function randomBytes(random: Random, count: number): HostileBody[] {
  return Array.from({ length: count }, (_, i) => ({
    name: 'random bytes',
    body: random.bytes(random.int(1, i % 10 === 0 ? 30_000 : 2_000)),
    headers: JSON_TYPE,
    expect: [400, 422],
  }));
}

/** Syntactically broken by construction: every mutation leaves text that no JSON parser accepts. */
function brokenJson(endpoint: 'create' | 'connect', random: Random, count: number): HostileBody[] {
  const valid = JSON.stringify({ ...BASE[endpoint], access_token: 'tok', metadata: { a: 'b', c: 'd' } });
  const mutations: ((s: string) => string)[] = [
    (s) => s.slice(0, random.int(0, s.length - 1)), // a proper prefix of an object is never JSON
    (s) => `${s}${random.pick(['x', '}', ']', ',', '{', '"', 'null', '//'])}`,
    (s) => `${random.pick(['x', ',', ']', '}', ':', "'", '\\'])}${s}`,
    (s) => s.replace(/"/g, "'"),
    (s) => s.replace(/"([a-z_]+)":/g, '$1:'),
    (s) => s.replace(/}$/, ',}'),
    (s) => s.replace(/^{/, '{/* comment */'),
    (s) => s.replace(/"tok"/, random.pick(['NaN', 'Infinity', 'undefined', '0x10', '01', '.5', '+1', "'tok'", '"\\x41"', '"\\u12"', '"\t"'])),
    (s) => s.replace(/:/, random.pick(['=', ';', '::', ' '])),
    (s) => s.replace(/}$/, '}'.repeat(random.int(2, 50))),
  ];
  return Array.from({ length: count }, (_, i) => ({
    name: `broken JSON #${i % mutations.length}`,
    body: mutations[i % mutations.length]!(valid),
    headers: JSON_TYPE,
    expect: SYNTAX,
  }));
}

/** As deep as fits under the body limit: the parser, not the limit, must refuse these. */
function deepNesting(random: Random, limits: BodyLimits, count: number): HostileBody[] {
  const bytesPerLevel = [2, 6, 2, 5, 16];
  const out: HostileBody[] = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 5;
    const depth = random.int(500, Math.floor((limits.bodyLimit - 100) / bytesPerLevel[kind]!));
    let body: string;
    if (kind === 0) body = '['.repeat(depth) + ']'.repeat(depth); // an array, not an object
    else if (kind === 1) body = `{"url":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    else if (kind === 2) body = `{"metadata":{"name":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    else if (kind === 3) body = '{"a":'.repeat(depth); // unterminated
    else body = `{"x":${'[{"__proto__":'.repeat(depth)}1${'}]'.repeat(depth)}}`;
    out.push({ name: `deep nesting kind ${kind} depth ${depth}`, body, headers: JSON_TYPE, expect: [400, 422] });
  }
  return out;
}

/** Over every field's maximum, under the body limit. */
function hugeStrings(endpoint: 'create' | 'connect', random: Random, count: number): HostileBody[] {
  const fields = endpoint === 'create' ? ['url', 'client_id', 'client_secret', 'metadata-key', 'metadata-value', 'unknown'] : ['access_token', 'redirect_url', 'unknown'];
  return Array.from({ length: count }, (_, i) => {
    const field = fields[i % fields.length]!;
    const text = random.string(random.int(16_400, 18_000), i % 2 ? MIXED_TEXT : ASCII_PRINTABLE);
    const value = field === 'metadata-key' ? { metadata: { [text]: 'v' } }
      : field === 'metadata-value' ? { metadata: { k: text } }
      : field === 'unknown' ? { [text.slice(0, 100)]: text }
      : field === 'url' ? { url: `http://x.example/${text}` }
      : { [field]: text };
    return json(`huge string in ${field}`, { ...BASE[endpoint], ...value }, INVALID);
  });
}

function prototypePollution(endpoint: 'create' | 'connect'): HostileBody[] {
  const base = JSON.stringify(BASE[endpoint]).slice(1, -1);
  const sep = base ? ',' : '';
  const raw = (name: string, members: string, expect: readonly number[]) => ({ name, body: `{${base}${sep}${members}}`, headers: JSON_TYPE, expect });
  return [
    raw('__proto__ at top level', '"__proto__":{"polluted":"yes"}', SYNTAX),
    raw('escaped __proto__', '"\\u005f\\u005fproto\\u005f\\u005f":{"polluted":"yes"}', SYNTAX),
    raw('__proto__ in metadata', '"metadata":{"__proto__":{"polluted":"yes"}}', SYNTAX),
    raw('__proto__ string in metadata', '"metadata":{"__proto__":"yes"}', SYNTAX),
    raw('__proto__ deep', '"x":[{"y":{"__proto__":{"polluted":"yes"}}}]', SYNTAX),
    raw('constructor.prototype at top level', '"constructor":{"prototype":{"polluted":"yes"}}', INVALID),
    raw('constructor.prototype in metadata', '"metadata":{"constructor":{"prototype":{"polluted":"yes"}}}', INVALID),
    raw('prototype key', '"prototype":{"polluted":"yes"}', INVALID),
    raw('__proto__ as array', '"__proto__":[1,2]', SYNTAX),
    raw('duplicate keys', '"url":1,"url":2,"url":{}', INVALID),
  ];
}

function oversized(random: Random, limits: BodyLimits, count: number): HostileBody[] {
  const out: HostileBody[] = [];
  for (let i = 0; i < count; i++) {
    const size = limits.bodyLimit + random.int(1, limits.bodyLimit * 3);
    const text = `{"url":"http://x.example/${'a'.repeat(size)}"}`;
    const kind = i % 4;
    if (kind === 0) out.push({ name: `over the limit (${size} B)`, body: text, headers: JSON_TYPE, expect: [413] });
    else if (kind === 1) out.push({ name: `over the limit, chunked (${size} B)`, body: chunked(Buffer.from(text)), headers: JSON_TYPE, expect: [413] });
    else if (kind === 2) out.push({ name: `over the limit, text/plain (${size} B)`, body: text, headers: { 'content-type': 'text/plain' }, expect: [413, 415] });
    else {
      // Small on the wire, large once inflated: the limit must apply to the decoded body.
      const bomb = gzipSync(Buffer.from(`{"url":"${' '.repeat(size * 4)}"}`));
      out.push({ name: `gzip bomb (${size * 4} B inflated)`, body: bomb, headers: { ...JSON_TYPE, 'content-encoding': 'gzip' }, expect: [413] });
    }
  }
  return out;
}

function chunked(data: Buffer): () => AsyncIterable<Buffer> {
  return async function* () {
    for (let at = 0; at < data.length; at += 16_384) yield data.subarray(at, at + 16_384);
  };
}

function wrongContentTypes(endpoint: 'create' | 'connect', random: Random): HostileBody[] {
  const valid = JSON.stringify(endpoint === 'create' ? BASE.create : { access_token: 'a-token' });
  const types = [
    'text/plain', 'text/html', 'text/json', 'application/xml', 'text/xml', 'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=xyz', 'application/octet-stream', 'application/jsonx', 'application/json-seq',
    'application/merge-patch+json', 'application/problem+json', 'application/ld+json', 'image/png', 'json', '*/*',
    'application/*', 'application', '/', ';', 'application/json/json', '\u00ff\u00fe', 'x'.repeat(2000),
  ];
  const out: HostileBody[] = types.map((type) => ({ name: `content-type ${type.slice(0, 40)}`, body: valid, headers: { 'content-type': type }, expect: [415] }));
  out.push({ name: 'no content-type', body: valid, headers: {}, expect: [415] });
  for (let i = 0; i < 20; i++) {
    const type = `${random.string(random.int(1, 20), ASCII_PRINTABLE.filter((c) => /[a-z*+.-]/.test(c)))}/${random.string(random.int(1, 20), ASCII_PRINTABLE.filter((c) => c !== ' '))}`;
    out.push({ name: 'random content-type', body: valid, headers: { 'content-type': type }, expect: [415] });
  }
  return out;
}

function encodings(endpoint: 'create' | 'connect'): HostileBody[] {
  const invalid = JSON.stringify({ ...BASE[endpoint], unknown_field: 1 });
  const enc = (name: string, encoding: string, body: Buffer | string, expect: readonly number[]) =>
    ({ name: `content-encoding ${name}`, body, headers: { ...JSON_TYPE, 'content-encoding': encoding }, expect });
  const gz = gzipSync(invalid);
  return [
    enc('gzip, not compressed', 'gzip', invalid, SYNTAX),
    enc('deflate, not compressed', 'deflate', invalid, SYNTAX),
    enc('br, not compressed', 'br', invalid, SYNTAX),
    enc('gzip, truncated', 'gzip', gz.subarray(0, gz.length - 5), SYNTAX),
    enc('gzip, garbage tail', 'gzip', Buffer.concat([gz, Buffer.from('garbage')]), [400, 422]),
    enc('gzip of an invalid body', 'gzip', gz, INVALID),
    enc('br of an invalid body', 'br', brotliCompressSync(invalid), INVALID),
    enc('zstd (unsupported)', 'zstd', invalid, [415]),
    enc('compress (unsupported)', 'compress', invalid, [415]),
    enc('GZIP upper-case', 'GZIP', gz, [415]),
    enc('gzip, gzip', 'gzip, gzip', gz, [415]),
    enc('random token', 'x-\u00e9\u00e8', invalid, [415]),
  ];
}
