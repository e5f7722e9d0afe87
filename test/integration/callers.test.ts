// Caller authentication and ownership on the embedded stack: two owners with API keys, an admin
// key, and a third owner with access tokens from a local OpenID issuer. Every connector route and
// the MCP path, crossed with every caller; the MCP path's RFC 9728 challenge and document; the
// quotas; Origin; and the refusal to start open on a non-loopback address.
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { sha256Hex } from '../../callers/api-keys';
import { startJwtIssuer, type JwtIssuer } from '../fixtures/jwt-issuer';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { eventually, filesContaining, startTestStack, type ApiAnswer, type TestStack } from '../helpers/test-stack';
import { undeclaredAnswers } from '../helpers/declared-answers';
import { startOidcServer, startProtectedMcpServer } from '../fixtures/oauth';
import { openConsentPage } from '../helpers/oauth-service';

const UPSTREAM_TOKEN = 'upstream-token-for-callers-5e1f';
const KEYS = { alice: 'alice-key-0a1b2c3d4e5f', bob: 'bob-key-9f8e7d6c5b4a', ops: 'ops-key-7c6b5a4d3e2f', dave: 'dave-key-1122334455', carol: 'carol-key-5566778899', gus: 'gus-key-a1b2c3d4e5' };
const MCP_INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

let stack: TestStack;
let idp: JwtIssuer;
let upstream: TokenMcpServer;
let base: string;

test.before(async () => {
  idp = await startJwtIssuer();
  upstream = await startTokenMcpServer({ token: UPSTREAM_TOKEN });
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([
      { subject: 'alice', sha256: sha256Hex(KEYS.alice) },
      { subject: 'bob', sha256: sha256Hex(KEYS.bob) },
      { subject: 'dave', sha256: sha256Hex(KEYS.dave) },
      // Named like the identity provider's user carol: another owner all the same.
      { subject: 'carol', sha256: sha256Hex(KEYS.carol) },
      { subject: 'gus', sha256: sha256Hex(KEYS.gus) }, // the concurrent quota test's
      { subject: 'ops', sha256: sha256Hex(KEYS.ops), admin: true },
    ]),
    CONNECTOR__AUTH_ISSUER: idp.issuer,
    // Authentication on blocks private networks; the issuer and the MCP server here are on loopback.
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
    CONNECTOR__MAX_CONNECTORS_PER_OWNER: '6', // alice makes 4 here, bob 2; dave fills his up
    CONNECTOR__MAX_STREAMS_PER_OWNER: '2',
  });
  base = `http://127.0.0.1:${stack.port}`;
});
// Every answer of this file is one its operation declares (contract/operations.ts).
test.after('no handler answered a status or problem type its operation does not declare', (t) => {
  t.deepEqual(undeclaredAnswers(stack.logFile), []);
});

test.after.always(async () => {
  await stack?.stop();
  await upstream?.close();
  await idp?.close();
});

const as = (credential: string | null, extra: Record<string, string> = {}) => (credential ? { authorization: `Bearer ${credential}`, ...extra } : extra);
async function create(credential: string, name: string): Promise<{ id: string; mcp_url: string; created_by: string; created_by_name: string }> {
  const res = await stack.api('POST', '/api/v1/connectors', { url: upstream.url, metadata: { name } }, as(credential));
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${res.text}`);
  return res.body;
}
const shape = (res: ApiAnswer) => ({ status: res.status, body: { ...res.body, detail: undefined } });

test('without a credential: 401 with a Bearer challenge on the API; health, OpenAPI and well-known documents stay open', async (t) => {
  const res = await stack.api('GET', '/api/v1/connectors');
  t.is(res.status, 401);
  t.is(res.headers.get('www-authenticate'), 'Bearer');
  t.is(res.body.type, 'https://connector-registry.dev/problems/unauthorized');
  const wrong = await stack.api('GET', '/api/v1/connectors', undefined, as('not-a-key'));
  t.is(wrong.status, 401);
  t.is(wrong.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
  t.false(wrong.text.includes('not-a-key'), 'the credential is not echoed');
  for (const open of ['/healthz', '/readyz', '/api/v1/openapi.json']) t.is((await stack.api('GET', open)).status, 200, open);
});

test('another owner\'s connector answers 404 on every route and the MCP path, exactly as one that does not exist', async (t) => {
  const mine = await create(KEYS.alice, 'alice-owned');
  t.is(mine.created_by, 'key:alice', 'the owner is qualified by where its identity comes from');
  t.is(mine.created_by_name, 'alice');
  t.is((await stack.api('POST', `/api/v1/connectors/${mine.id}/connect`, { access_token: UPSTREAM_TOKEN }, as(KEYS.alice))).status, 200);
  const missing = '00000000-0000-4000-8000-000000000000';
  const routes: [string, string, unknown?, Record<string, string>?][] = [
    ['GET', ''], ['GET', '/events'], ['POST', '/connect', { access_token: 'bob-token' }], ['POST', '/disconnect'], ['DELETE', ''],
    ['POST', '/mcp', MCP_INIT, MCP_HEADERS], ['GET', '/mcp', undefined, { accept: 'text/event-stream' }], ['DELETE', '/mcp'],
  ];
  for (const [method, suffix, body, headers] of routes) {
    const foreign = await stack.api(method, `/api/v1/connectors/${mine.id}${suffix}`, body, as(KEYS.bob, headers));
    const absent = await stack.api(method, `/api/v1/connectors/${missing}${suffix}`, body, as(KEYS.bob, headers));
    t.is(foreign.status, 404, `${method} ${suffix || '/'} as bob`);
    t.log(`bob: ${method} /api/v1/connectors/{alice's}${suffix} -> ${foreign.status} ${foreign.body?.detail ?? ''}`);
    t.deepEqual(shape(foreign), shape(absent), `${method} ${suffix || '/'}: the same answer as for no connector`);
  }
  const still = await stack.api('GET', `/api/v1/connectors/${mine.id}`, undefined, as(KEYS.alice));
  t.like(still.body, { state: 'connected', created_by: 'key:alice' }, 'nothing bob tried changed it');
  const events = await stack.api('GET', `/api/v1/connectors/${mine.id}/events`, undefined, as(KEYS.alice));
  t.deepEqual(events.body.items.map((e: { actor: string }) => e.actor), ['key:alice', 'key:alice', 'key:alice'], 'the audit trail names the caller');
  const call = await fetch(`${base}/api/v1/connectors/${mine.id}/mcp`, {
    method: 'POST', headers: { ...as(KEYS.alice, MCP_HEADERS), 'content-type': 'application/json' }, body: JSON.stringify(MCP_INIT),
  });
  t.is(call.status, 200);
  await call.body?.cancel();
  t.false(upstream.seenAuthorization.includes(`Bearer ${KEYS.alice}`), "the caller's credential never reaches the MCP server");
  t.true(upstream.seenAuthorization.includes(`Bearer ${UPSTREAM_TOKEN}`));
});

test('lists: each owner sees its own; an admin sees all and filters by created_by', async (t) => {
  const a = await create(KEYS.alice, 'alice-list');
  const b = await create(KEYS.bob, 'bob-list');
  const ids = async (credential: string, query = '') =>
    (await stack.api('GET', `/api/v1/connectors?limit=100${query}`, undefined, as(credential))).body.items.map((c: { id: string }) => c.id);
  const alice = await ids(KEYS.alice);
  t.true(alice.includes(a.id));
  t.false(alice.includes(b.id));
  const bob = await ids(KEYS.bob);
  t.true(bob.includes(b.id) && !bob.includes(a.id));
  const all = await ids(KEYS.ops);
  t.true(all.includes(a.id) && all.includes(b.id));
  const onlyAlice = await ids(KEYS.ops, '&created_by=key:alice');
  t.deepEqual(await ids(KEYS.ops, '&created_by=alice'), [], 'the filter takes the qualified owner, as created_by shows it');
  t.true(onlyAlice.includes(a.id) && !onlyAlice.includes(b.id));
  // Other tests in this file create bob's connectors concurrently: compare owners, not snapshots.
  const bobAsksForAlice = (await stack.api('GET', '/api/v1/connectors?limit=100&created_by=key:alice', undefined, as(KEYS.bob))).body.items as { id: string; created_by: string }[];
  t.true(bobAsksForAlice.some((c) => c.id === b.id), 'created_by is an admin filter: bob still gets his own');
  t.deepEqual([...new Set(bobAsksForAlice.map((c) => c.created_by))], ['key:bob'], 'and only his own, whatever he asks');
  t.is((await stack.api('GET', `/api/v1/connectors/${a.id}`, undefined, as(KEYS.ops))).status, 200, 'the admin acts on all');
});

test('access tokens: the subject owns what it creates; a token for a connector\'s mcp_url works on that MCP path only', async (t) => {
  const jwt = await idp.sign({ sub: 'carol', aud: base.replace('127.0.0.1', 'localhost') });
  // BASE_URL of the test stack is http://127.0.0.1:{port}: the default audience.
  const token = await idp.sign({ sub: 'carol', email: 'carol@example.com', aud: `http://127.0.0.1:${stack.port}` });
  t.is((await stack.api('GET', '/api/v1/connectors', undefined, as(jwt))).status, 401, 'another audience is refused');
  const c = await create(token, 'carol-owned');
  t.is(c.created_by, 'oidc:carol');
  t.is(c.created_by_name, 'carol@example.com', 'the readable name is the token\'s email');
  const keyCarol = await create(KEYS.carol, 'key-carol-owned');
  t.is(keyCarol.created_by, 'key:carol');
  t.is((await stack.api('GET', `/api/v1/connectors/${c.id}`, undefined, as(KEYS.carol))).status, 404, 'a key named carol is not the user carol');
  t.is((await stack.api('GET', `/api/v1/connectors/${keyCarol.id}`, undefined, as(token))).status, 404, 'nor the other way round');
  const mcpAsKey = await fetch(c.mcp_url, { method: 'POST', headers: { ...as(KEYS.carol, MCP_HEADERS), 'content-type': 'application/json' }, body: JSON.stringify(MCP_INIT) });
  t.is(mcpAsKey.status, 404, 'nor on the MCP path');
  await mcpAsKey.body?.cancel();
  t.is((await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: UPSTREAM_TOKEN }, as(token))).status, 200);
  const bobOwned = await create(KEYS.bob, 'bob-seen-by-jwt-admin');
  const adminToken = await idp.sign({ sub: 'root', aud: `http://127.0.0.1:${stack.port}`, roles: ['connector-admin'] });
  t.is((await stack.api('GET', `/api/v1/connectors/${bobOwned.id}`, undefined, as(adminToken))).status, 200, 'the admin role in a token sees all');
  t.is((await stack.api('GET', `/api/v1/connectors/${bobOwned.id}`, undefined, as(token))).status, 404, 'carol does not');
  const resourceToken = await idp.sign({ sub: 'carol', aud: c.mcp_url });
  t.is((await stack.api('GET', `/api/v1/connectors/${c.id}`, undefined, as(resourceToken))).status, 401, 'not a token for the API');
  const call = await fetch(c.mcp_url, { method: 'POST', headers: { ...as(resourceToken, MCP_HEADERS), 'content-type': 'application/json' }, body: JSON.stringify(MCP_INIT) });
  t.is(call.status, 200, 'a token minted for the MCP URL (RFC 8707) works there');
  await call.body?.cancel();
});

test('the MCP path without a credential: 401 with resource_metadata and the scope to ask for, whose document names the resource, the issuer and the scopes', async (t) => {
  const c = await create(KEYS.alice, 'alice-prm');
  const res = await fetch(c.mcp_url, { method: 'POST', headers: { ...MCP_HEADERS, 'content-type': 'application/json' }, body: JSON.stringify(MCP_INIT) });
  t.is(res.status, 401);
  const metadataUrl = `${base}/.well-known/oauth-protected-resource/api/v1/connectors/${c.id}/mcp`;
  // CONNECTOR__AUTH_SCOPES unset: openid, which an OpenID issuer always knows (clients that read
  // no scope from either place register and authorize with an empty one, which issuers refuse).
  t.is(res.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl}", scope="openid"`);
  const document = await stack.api('GET', new URL(metadataUrl).pathname);
  t.is(document.status, 200);
  t.deepEqual(document.body.resource, c.mcp_url);
  t.deepEqual(document.body.authorization_servers, [idp.issuer]);
  t.deepEqual(document.body.scopes_supported, ['openid']);
});

test('quotas: connectors per owner, and concurrent MCP requests per owner (429 beyond); the request rate limit is on by default', async (t) => {
  t.deepEqual(stack.config.callers.rateLimitPerOwner, { perSecond: 50, burst: 100 }, 'CONNECTOR__RATE_LIMIT_PER_OWNER unset, callers authenticated');
  // Its own MCP server: the one the other tests share is never made to hang.
  const slow = await startTokenMcpServer({ token: UPSTREAM_TOKEN });
  t.teardown(() => slow.close());
  for (let i = 0; i < 6; i++) {
    const res = await stack.api('POST', '/api/v1/connectors', { url: slow.url, metadata: { name: `dave-${i}` } }, as(KEYS.dave));
    t.is(res.status, 201);
  }
  const over = await stack.api('POST', '/api/v1/connectors', { url: slow.url }, as(KEYS.dave));
  t.is(over.status, 429);
  t.regex(over.body.detail, /CONNECTOR__MAX_CONNECTORS_PER_OWNER/);

  const mine = (await stack.api('GET', '/api/v1/connectors?limit=1', undefined, as(KEYS.dave))).body.items[0];
  t.is((await stack.api('POST', `/api/v1/connectors/${mine.id}/connect`, { access_token: UPSTREAM_TOKEN }, as(KEYS.dave))).status, 200);
  slow.setHang(true);
  const controllers = [new AbortController(), new AbortController()];
  const post = (signal?: AbortSignal) => fetch(mine.mcp_url, {
    method: 'POST', signal, headers: { ...as(KEYS.dave, MCP_HEADERS), 'content-type': 'application/json' }, body: JSON.stringify(MCP_INIT),
  });
  const held = controllers.map((c) => post(c.signal).catch(() => undefined));
  try {
    const seen = slow.seenAuthorization.length;
    await eventually(async () => (slow.seenAuthorization.length >= seen + 2 ? true : undefined), 10_000, 'two requests upstream');
    const third = await post();
    t.is(third.status, 429);
    const otherOwner = await stack.api('GET', '/api/v1/connectors', undefined, as(KEYS.bob));
    t.is(otherOwner.status, 200, 'another owner is not affected');
  } finally {
    slow.setHang(false);
    for (const c of controllers) c.abort();
    await Promise.all(held);
  }
});

test('the consent and callback pages: never framed; the consent page names the owner by its readable name, plainly', async (t) => {
  const oauth = await startOidcServer();
  const mcp = await startProtectedMcpServer({ issuer: oauth.issuer, jwksUri: oauth.jwksUri });
  t.teardown(async () => {
    await mcp.close();
    await oauth.close();
  });
  const token = await idp.sign({ sub: 'erin-7d1c', email: 'erin@example.com', aud: base });
  const created = await stack.api('POST', '/api/v1/connectors', { url: mcp.url }, as(token));
  t.is(created.status, 201, created.text);
  t.is(created.body.created_by_name, 'erin@example.com');
  const connect = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, {}, as(token));
  t.is(connect.body.state, 'auth_required', connect.text);
  const endpoint = new URL(connect.body.auth_request.authorization_endpoint);
  const res = await fetch(`${base}${endpoint.pathname}${endpoint.search}`, { redirect: 'manual' });
  await res.body?.cancel();
  t.regex(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  t.is(res.headers.get('x-frame-options'), 'DENY');
  const consent = await openConsentPage(stack.port, endpoint.href);
  t.regex(consent.page, /belongs to <strong>erin@example\.com<\/strong>/, 'the readable name captured at create');
  t.regex(consent.page, /your account at this MCP server will serve <strong>erin@example\.com<\/strong>/);
  t.false(consent.page.includes('erin-7d1c'), 'not the opaque subject');

  const callback = await fetch(`${base}/api/v1/connectors/oauth/callback?state=unknown`, { redirect: 'manual' });
  await callback.body?.cancel();
  t.is(callback.status, 400);
  t.regex(callback.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  t.is(callback.headers.get('x-frame-options'), 'DENY');
});

test('the connector quota holds under concurrent creates: 14 at once against 6 give 6 × 201 and 8 × 429; a delete gives one back', async (t) => {
  const statuses = await Promise.all(Array.from({ length: 14 }, (_, i) =>
    stack.api('POST', '/api/v1/connectors', { url: upstream.url, metadata: { name: `gus-${i}` } }, as(KEYS.gus))));
  const count = (status: number) => statuses.filter((r) => r.status === status).length;
  t.is(count(201), 6, statuses.map((r) => r.status).join(' '));
  t.is(count(429), 8);
  const listed = await stack.api('GET', '/api/v1/connectors?limit=100', undefined, as(KEYS.gus));
  t.is(listed.body.items.length, 6, 'six connectors, not more');
  const first = statuses.find((r) => r.status === 201)!.body.id as string;
  t.is((await stack.api('DELETE', `/api/v1/connectors/${first}`, undefined, as(KEYS.gus))).status, 202);
  // The slot comes back once the record is removed (the workflow's deletion, a moment later).
  const again = await eventually(async () => {
    const res = await stack.api('POST', '/api/v1/connectors', { url: upstream.url, metadata: { name: 'gus-again' } }, as(KEYS.gus));
    return res.status === 201 ? res : undefined;
  }, 30_000, 'a create after the delete');
  t.is(again.status, 201);
});

test('with callers authenticated, a redirect_url must be on CONNECTOR__ALLOWED_REDIRECT_ORIGINS (none set: none accepted)', async (t) => {
  const c = await create(KEYS.alice, 'alice-redirect');
  const res = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { redirect_url: 'https://app.example/done' }, as(KEYS.alice));
  t.is(res.status, 422);
  t.regex(res.body.detail, /CONNECTOR__ALLOWED_REDIRECT_ORIGINS/);
});

test('a foreign Origin is refused on every path; the service\'s own is not', async (t) => {
  t.is((await stack.api('GET', '/api/v1/connectors', undefined, as(KEYS.alice, { origin: 'http://evil.example' }))).status, 403);
  t.is((await stack.api('POST', '/api/v1/connectors/00000000-0000-4000-8000-000000000000/mcp', '{}', as(KEYS.alice, { origin: 'http://evil.example' }))).status, 403);
  t.is((await stack.api('GET', '/api/v1/connectors', undefined, as(KEYS.alice, { origin: base }))).status, 200);
});

test('without issuer or keys, the service refuses to start on a non-loopback address, naming the variables', (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'callers-refusal-'));
  const root = fileURLToPath(new URL('../..', import.meta.url));
  // The configuration is refused before anything listens: no traffic leaves loopback (none is sent at all).
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'stack/embedded.ts'], {
    cwd: root, env: { ...process.env, HOST: '0.0.0.0', PORT: '0', DATA_DIR: dataDir }, encoding: 'utf8', timeout: 60_000,
  });
  t.not(run.status, 0);
  t.regex(run.stdout + run.stderr, /CONNECTOR__AUTH_ISSUER.*CONNECTOR__API_KEYS.*CONNECTOR__AUTH_DISABLED/s);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('hostile Authorization headers: garbage, huge, repeated, JWTs with hostile headers — a 4xx each, never a 5xx', async (t) => {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const claims = b64({ sub: 'mallory', aud: base, iss: idp.issuer, exp: Math.floor(Date.now() / 1000) + 300 });
  const jwts = [
    { alg: 'none' }, { alg: 'HS256', kid: 'key-1' }, { alg: 'ES256', kid: '../../../../etc/passwd' },
    { alg: 'ES256', kid: 'x'.repeat(5000) }, { alg: 'RS256', jku: 'http://169.254.169.254/keys' },
    { alg: 'ES256', x5u: 'http://10.0.0.1/cert' }, { alg: 'ES256', crit: ['exp'] }, { alg: 'ES256', jwk: { kty: 'oct', k: 'AAAA' } },
    'not json', { alg: ['ES256'] }, {},
  ].map((header) => `Bearer ${typeof header === 'string' ? Buffer.from(header).toString('base64url') : b64(header)}.${claims}.c2ln`);
  const garbage = ['Bearer', 'Bearer  ', 'bearer x y', 'Bearer \u0001', `Bearer ${'a'.repeat(12_000)}`, 'Basic YWxpY2U6cGFzcw==', 'Bearer a.b', 'Bearer ...', 'Bearer =', ''];
  const statuses = new Map<number, number>();
  for (const authorization of [...jwts, ...garbage]) {
    for (const target of ['/api/v1/connectors', '/api/v1/connectors/00000000-0000-4000-8000-000000000000/mcp']) {
      const res = await fetch(base + target, { method: 'GET', headers: { authorization, accept: 'text/event-stream' } }).catch(() => null);
      if (!res) continue; // a header Node's client itself refuses to send
      await res.body?.cancel();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      t.true(res.status >= 400 && res.status < 500, `${target} with ${authorization.slice(0, 60)}: ${res.status}`);
    }
  }
  // Repeated Authorization headers, sent raw.
  const repeated = await new Promise<number>((resolve, reject) => {
    const socket = net.connect(stack.port, '127.0.0.1', () => {
      socket.write(`GET /api/v1/connectors HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEYS.alice}\r\nAuthorization: Bearer ${KEYS.ops}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (d: Buffer) => { text += d.toString(); });
    socket.on('end', () => resolve(Number(text.split(' ')[1])));
    socket.on('error', reject);
  });
  t.true(repeated >= 400 && repeated < 500, `two Authorization headers: ${repeated}`);
  t.log(`statuses: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(' ')}`);
  for (const key of Object.values(KEYS)) t.deepEqual(filesContaining(stack.dataDir, key), [], 'no API key in the logs or the data dir');
});
