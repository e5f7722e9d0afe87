// Request smuggling through the MCP path (issue 22): the proxy relays exactly one upstream request
// per request, whatever framing the caller tries, and no byte of one owner's request ever reaches
// an upstream socket that carries another owner's. Two owners, each with a connector on the same
// upstream origin; the callers write raw bytes, and the upstream (raw-upstream.ts) parses and
// counts what each of its connections brings, the way a plain keep-alive server would.
//
// Every refusal is asserted from the socket, whether Node's parser (llhttp) gives it or the proxy's
// own check (request-framing.ts): a future Node or an insecureHTTPParser must not reopen any.
import test, { type ExecutionContext } from 'ava';
import { OWNER_A, OWNER_B, chunked, exchange, head, labelOf, startTenantProxy, type Tenant, type TenantProxy } from './tenant-proxy';
import { eventually } from '../helpers/test-stack';
import type { ParsedRequest } from './raw-upstream';

const BODY = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
const SMUGGLED = 'POST /capture HTTP/1.1\r\nHost: attacker.example\r\nContent-Type: text/plain\r\nContent-Length: 400\r\n\r\n';
const METHODS = ['POST', 'GET', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

/** relayed: a body the caller may send (POST only; GET and DELETE with it are refused). */
type Outcome = 'refused' | 'body' | 'no-body';

interface Framing {
  name: string;
  outcome: Outcome;
  /** Headers after the common ones, and the bytes after the head. */
  headers: string[];
  body: string;
  /** The body the upstream must get when relayed (default: none). */
  relayedBody?: string;
}

const FRAMINGS: Framing[] = [
  { name: 'no-body', outcome: 'no-body', headers: [], body: '' },
  { name: 'content-length', outcome: 'body', headers: [`Content-Length: ${BODY.length}`], body: BODY, relayedBody: BODY },
  { name: 'content-length-zero', outcome: 'no-body', headers: ['Content-Length: 0'], body: '' },
  { name: 'content-length-leading-zero', outcome: 'body', headers: [`Content-Length: 0${BODY.length}`], body: BODY, relayedBody: BODY },
  { name: 'chunked', outcome: 'body', headers: ['Transfer-Encoding: chunked'], body: chunked(BODY.slice(0, 10), BODY.slice(10)), relayedBody: BODY },
  { name: 'chunked-upper-case', outcome: 'body', headers: ['Transfer-Encoding: CHUNKED'], body: chunked(BODY), relayedBody: BODY },
  { name: 'chunked-tab', outcome: 'body', headers: ['Transfer-Encoding:\tchunked'], body: chunked(BODY), relayedBody: BODY },
  { name: 'chunk-extension', outcome: 'body', headers: ['Transfer-Encoding: chunked'], body: `${BODY.length.toString(16)};ext="x"\r\n${BODY}\r\n0\r\n\r\n`, relayedBody: BODY },
  { name: 'chunked-trailer', outcome: 'body', headers: ['Transfer-Encoding: chunked', 'Trailer: X-Trailer'], body: `${chunked(BODY).slice(0, -2)}X-Trailer: 1\r\n\r\n`, relayedBody: BODY },
  // A whole request as chunk data: for POST it is a body like any other, framed anew upstream.
  { name: 'smuggled-in-chunk', outcome: 'body', headers: ['Transfer-Encoding: chunked'], body: chunked(SMUGGLED), relayedBody: SMUGGLED },
  { name: 'expect-continue', outcome: 'body', headers: ['Expect: 100-continue', `Content-Length: ${BODY.length}`], body: BODY, relayedBody: BODY },
  { name: 'connection-upgrade', outcome: 'body', headers: ['Connection: Upgrade', 'Upgrade: websocket', `Content-Length: ${BODY.length}`], body: BODY, relayedBody: BODY },
  { name: 'cl-te', outcome: 'refused', headers: ['Content-Length: 5', 'Transfer-Encoding: chunked'], body: chunked(SMUGGLED) },
  { name: 'te-cl', outcome: 'refused', headers: ['Transfer-Encoding: chunked', 'Content-Length: 5'], body: chunked(SMUGGLED) },
  { name: 'te-te-chunked-then-x', outcome: 'refused', headers: ['Transfer-Encoding: chunked', 'Transfer-Encoding: x'], body: chunked(SMUGGLED) },
  { name: 'te-te-x-then-chunked', outcome: 'refused', headers: ['Transfer-Encoding: x', 'Transfer-Encoding: chunked'], body: chunked(SMUGGLED) },
  { name: 'te-te-chunked-twice', outcome: 'refused', headers: ['Transfer-Encoding: chunked', 'Transfer-Encoding: chunked'], body: chunked(SMUGGLED) },
  { name: 'te-gzip-chunked', outcome: 'refused', headers: ['Transfer-Encoding: gzip, chunked'], body: chunked(SMUGGLED) },
  { name: 'te-chunked-identity', outcome: 'refused', headers: ['Transfer-Encoding: chunked, identity'], body: chunked(SMUGGLED) },
  { name: 'te-xchunked', outcome: 'refused', headers: ['Transfer-Encoding: xchunked'], body: chunked(SMUGGLED) },
  { name: 'te-space-before-colon', outcome: 'refused', headers: ['Transfer-Encoding : chunked'], body: chunked(SMUGGLED) },
  { name: 'te-vertical-tab', outcome: 'refused', headers: ['Transfer-Encoding:\x0bchunked'], body: chunked(SMUGGLED) },
  { name: 'te-obs-fold', outcome: 'refused', headers: ['Transfer-Encoding:\r\n chunked'], body: chunked(SMUGGLED) },
  { name: 'obs-fold-other-header', outcome: 'refused', headers: ['X-Folded: a\r\n b', `Content-Length: ${BODY.length}`], body: BODY },
  { name: 'duplicate-content-length', outcome: 'refused', headers: [`Content-Length: ${BODY.length}`, `Content-Length: ${BODY.length}`], body: BODY },
  { name: 'different-content-lengths', outcome: 'refused', headers: ['Content-Length: 5', `Content-Length: ${BODY.length}`], body: BODY },
  { name: 'content-length-list', outcome: 'refused', headers: [`Content-Length: ${BODY.length}, ${BODY.length}`], body: BODY },
  { name: 'content-length-signed', outcome: 'refused', headers: [`Content-Length: +${BODY.length}`], body: BODY },
  { name: 'chunk-extension-bare-lf', outcome: 'refused', headers: ['Transfer-Encoding: chunked'], body: `${BODY.length.toString(16)};ext\n${SMUGGLED}\r\n${BODY}\r\n0\r\n\r\n` },
  { name: 'chunk-extension-crlf-in-quotes', outcome: 'refused', headers: ['Transfer-Encoding: chunked'], body: `${BODY.length.toString(16)};ext="\r\n${SMUGGLED}"\r\n${BODY}\r\n0\r\n\r\n` },
  { name: 'chunk-extension-oversized', outcome: 'refused', headers: ['Transfer-Encoding: chunked'], body: `${BODY.length.toString(16)};${'e'.repeat(20_000)}\r\n${BODY}\r\n0\r\n\r\n` },
  { name: 'chunk-size-bare-lf', outcome: 'refused', headers: ['Transfer-Encoding: chunked'], body: `${BODY.length.toString(16)}\n${BODY}\r\n0\r\n\r\n` },
  { name: 'chunk-size-prefixed', outcome: 'refused', headers: ['Transfer-Encoding: chunked'], body: `0x${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\n\r\n` },
  { name: 'chunk-longer-than-its-size', outcome: 'refused', headers: ['Transfer-Encoding: chunked'], body: `5\r\n${BODY}\r\n0\r\n\r\n` },
];

/** Hop-by-hop and framing headers a caller may send that must never reach the upstream. */
const NEVER_FORWARDED = ['upgrade', 'te', 'trailer', 'expect', 'keep-alive', 'x-hop', 'proxy-connection'];

function expectedStatus(method: Method, outcome: Outcome): number {
  if (outcome === 'refused') return 400;
  if (outcome === 'body' && method !== 'POST') return 400;
  return 200;
}

async function service(t: ExecutionContext): Promise<TenantProxy> {
  const started = await startTenantProxy();
  t.teardown(() => started.close());
  return started;
}

/** Owner B's request on a connection of its own: it must arrive whole and alone. */
async function ownerBRequest(t: ExecutionContext, s: TenantProxy, label: string): Promise<void> {
  const [answer] = await exchange(s.port, head('POST', OWNER_B, s.host, ['Content-Type: application/json', `Content-Length: ${BODY.length}`], { label }) + BODY);
  t.is(answer?.status, 200, `owner B's request after ${label}`);
  const arrived = s.upstream.requests.filter((r) => labelOf(r.target) === label);
  t.is(arrived.length, 1, `owner B's request ${label} arrived once`);
  t.is(arrived[0]?.body.toString(), BODY);
  t.is(s.upstream.header(arrived[0]!, 'authorization'), `Bearer ${OWNER_B.token}`);
}

/**
 * The invariants that hold after anything: nothing the callers did not send, nothing twice, no
 * socket shared between owners; and a request cut off (the caller's body broke off mid-way) is
 * left on a connection the proxy closed, so that no later bytes can ever complete it.
 */
async function assertOneRequestPerRequest(t: ExecutionContext, s: TenantProxy, sent: Set<string>): Promise<void> {
  const labels = s.upstream.requests.map((r) => labelOf(r.target));
  t.deepEqual(labels.filter((l) => l === null || !sent.has(l)), [], 'the upstream parsed only requests the callers sent');
  t.is(new Set(labels).size, labels.length, 'each at most once');
  for (const [connection] of s.upstream.received.entries()) {
    if (s.upstream.leftover(connection).length === 0) continue;
    await eventually(async () => (s.upstream.closed[connection] ? true : undefined), 20_000, `connection ${connection}, holding a cut request, closed`);
  }
  t.false(s.upstream.requests.some((r) => r.target.includes('capture')), 'no smuggled request');
  assertOwnersApart(t, s);
}

function tokenOwner(request: ParsedRequest, s: TenantProxy): Tenant | undefined {
  const authorization = s.upstream.header(request, 'authorization');
  return [OWNER_A, OWNER_B].find((o) => authorization === `Bearer ${o.token}`);
}

/** On each upstream connection: one owner's requests only, and no other owner's token in its bytes. */
function assertOwnersApart(t: ExecutionContext, s: TenantProxy): void {
  s.upstream.received.forEach((bytes, connection) => {
    const owners = new Set(s.upstream.requests.filter((r) => r.connection === connection).map((r) => tokenOwner(r, s)?.owner));
    t.true(owners.size <= 1, `connection ${connection} carried the requests of ${[...owners].join(' and ')}`);
    const text = bytes.toString('latin1');
    const tokens = [OWNER_A, OWNER_B].filter((o) => text.includes(o.token));
    t.true(tokens.length <= 1, `connection ${connection} carried the bytes of ${tokens.map((o) => o.owner).join(' and ')}`);
  });
}

for (const method of METHODS) {
  for (const framing of FRAMINGS) {
    const status = expectedStatus(method, framing.outcome);
    test(`${method} with ${framing.name}: ${status === 200 ? 'one upstream request' : '400, nothing upstream'}; owner B unaffected`, async (t) => {
      const s = await service(t);
      const label = `${method}-${framing.name}`.toLowerCase();
      const extra = ['Connection: keep-alive, X-Hop', 'X-Hop: 1', 'Keep-Alive: timeout=5', 'TE: trailers', 'Upgrade: h2c', 'Proxy-Connection: keep-alive'];
      const answers = await exchange(s.port, head(method, OWNER_A, s.host, [...extra, ...framing.headers], { label }) + framing.body);
      t.is(answers[0]?.status, status, answers[0]?.raw);
      if (status === 400) t.regex(answers[0]!.raw, /application\/problem\+json/);
      const arrived = s.upstream.requests.filter((r) => labelOf(r.target) === label);
      t.is(arrived.length, status === 200 ? 1 : 0);
      if (arrived[0]) {
        const request = arrived[0];
        t.is(request.method, method);
        t.is(request.body.toString('latin1'), framing.relayedBody ?? '');
        t.is(s.upstream.header(request, 'authorization'), `Bearer ${OWNER_A.token}`);
        for (const name of NEVER_FORWARDED) t.is(s.upstream.header(request, name), undefined, `${name} not forwarded`);
        // The proxy's own framing: the length when it knew it, chunked only for a chunked POST.
        const length = s.upstream.header(request, 'content-length');
        const coding = s.upstream.header(request, 'transfer-encoding');
        const sentChunked = framing.headers.some((h) => /^transfer-encoding/i.test(h));
        if (method === 'POST') t.is(sentChunked ? coding : length, sentChunked ? 'chunked' : String(request.body.length));
        if (method === 'GET') t.deepEqual([length, coding], [undefined, undefined], 'a GET goes without framing');
        t.false(length !== undefined && coding !== undefined, 'one framing, never both');
      }
      await ownerBRequest(t, s, `b-after-${label}`);
      await assertOneRequestPerRequest(t, s, new Set([label, `b-after-${label}`]));
    });
  }
}

test("the attempt of issue 22: owner A's chunked DELETE carrying a request never swallows owner B's", async (t) => {
  const s = await service(t);
  const attempt = head('DELETE', OWNER_A, s.host, ['Transfer-Encoding: chunked'], { label: 'a-delete' }) + chunked(SMUGGLED);
  const [answer] = await exchange(s.port, attempt);
  t.is(answer?.status, 400);
  t.regex(answer!.raw, /connection: close/i, 'the connection whose framing was in doubt is closed');
  await ownerBRequest(t, s, 'b-next');
  // And with A's pool warm (a request of A's that did go through), B still never gets A's socket.
  const [warm] = await exchange(s.port, head('DELETE', OWNER_A, s.host, [], { label: 'a-warm' }));
  t.is(warm?.status, 200);
  await ownerBRequest(t, s, 'b-after-warm');
  await assertOneRequestPerRequest(t, s, new Set(['a-delete', 'a-warm', 'b-next', 'b-after-warm']));
});

test('Transfer-Encoding on HTTP/1.0 is refused, with or without a length', async (t) => {
  const s = await service(t);
  const [chunkedOnly] = await exchange(s.port, head('POST', OWNER_A, s.host, ['Transfer-Encoding: chunked'], { label: 'h10', version: '1.0' }) + chunked(SMUGGLED));
  t.is(chunkedOnly?.status, 400);
  const [both] = await exchange(s.port, head('POST', OWNER_A, s.host, ['Transfer-Encoding: chunked', 'Content-Length: 5'], { label: 'h10-cl', version: '1.0' }) + chunked(SMUGGLED));
  t.is(both?.status, 400);
  const [plain] = await exchange(s.port, head('POST', OWNER_A, s.host, [`Content-Length: ${BODY.length}`], { label: 'h10-plain', version: '1.0' }) + BODY);
  t.is(plain?.status, 200, 'HTTP/1.0 with a length is fine');
  await ownerBRequest(t, s, 'b-after-h10');
  await assertOneRequestPerRequest(t, s, new Set(['h10-plain', 'b-after-h10']));
  t.is(s.upstream.requests.filter((r) => labelOf(r.target) === 'h10-plain').length, 1);
});

test('pipelined requests from a caller: each relayed once, in its own upstream request', async (t) => {
  const s = await service(t);
  const json = ['Content-Type: application/json'];
  const pipelined = [
    head('POST', OWNER_A, s.host, [...json, `Content-Length: ${BODY.length}`], { label: 'p1' }) + BODY,
    head('GET', OWNER_A, s.host, [], { label: 'p2' }),
    head('POST', OWNER_A, s.host, [...json, 'Transfer-Encoding: chunked'], { label: 'p3' }) + chunked(SMUGGLED),
    head('DELETE', OWNER_A, s.host, [], { label: 'p4' }),
    head('POST', OWNER_A, s.host, [...json, `Content-Length: ${BODY.length}`], { label: 'p5' }) + BODY,
  ].join('');
  const answers = await exchange(s.port, pipelined, 5);
  t.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200, 200]);
  for (const label of ['p1', 'p2', 'p3', 'p4', 'p5']) {
    t.is(s.upstream.requests.filter((r) => labelOf(r.target) === label).length, 1, label);
  }
  t.is(s.upstream.requests.find((r) => labelOf(r.target) === 'p3')?.body.toString(), SMUGGLED, 'the chunked body went as a body');
  await ownerBRequest(t, s, 'b-after-pipeline');
  await assertOneRequestPerRequest(t, s, new Set(['p1', 'p2', 'p3', 'p4', 'p5', 'b-after-pipeline']));
});

test('a pipelined request behind a refused one is never read as part of it', async (t) => {
  const s = await service(t);
  const pipelined = head('DELETE', OWNER_A, s.host, ['Transfer-Encoding: chunked'], { label: 'bad' }) + chunked(SMUGGLED)
    + head('POST', OWNER_A, s.host, [`Content-Length: ${BODY.length}`], { label: 'behind' }) + BODY;
  const answers = await exchange(s.port, pipelined, 2);
  t.is(answers[0]?.status, 400);
  // Node may or may not relay the request behind before the connection closes; never twice,
  // never merged into another.
  t.true(s.upstream.requests.filter((r) => labelOf(r.target) === 'behind').length <= 1);
  t.is(s.upstream.requests.filter((r) => labelOf(r.target) === 'bad').length, 0);
  await ownerBRequest(t, s, 'b-after-bad');
  await assertOneRequestPerRequest(t, s, new Set(['behind', 'b-after-bad']));
});

test('a large body is relayed whole, under the length the caller declared', async (t) => {
  const s = await service(t);
  const large = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x', arguments: { blob: 'y'.repeat(300_000) } } });
  const [answer] = await exchange(s.port, head('POST', OWNER_A, s.host, [`Content-Length: ${large.length}`], { label: 'large' }) + large);
  t.is(answer?.status, 200);
  const request = s.upstream.requests.find((r) => labelOf(r.target) === 'large');
  t.is(request?.body.length, large.length);
  t.is(s.upstream.header(request!, 'content-length'), String(large.length));
  await assertOneRequestPerRequest(t, s, new Set(['large']));
});
