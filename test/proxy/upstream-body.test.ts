// The upstream body held to the framing the proxy declared for it (proxy/upstream-body.ts), against
// the raw upstream that records every byte: a body longer than declared is cut before the stray
// bytes are written, a shorter one fails instead of leaving the upstream waiting for the rest on a
// reusable socket, and a request declared bodiless sends nothing whatever its source holds.
import http from 'node:http';
import { Readable } from 'node:stream';
import test, { type ExecutionContext } from 'ava';
import { BodyLengthMismatch, framedBody } from '../../proxy/upstream-body';
import { eventually } from '../helpers/test-stack';
import { startRawUpstream, type RawUpstream } from './raw-upstream';

async function upstream(t: ExecutionContext, options: { answerDelayMs?: number } = {}): Promise<RawUpstream> {
  const started = await startRawUpstream(options);
  t.teardown(() => started.close());
  return started;
}

/** Sends `pieces` as the body of a POST that declares `declared`, through framedBody; the request's error, if any. */
function send(url: string, pieces: string[], declared: number | null | undefined): Promise<Error | null> {
  return new Promise((resolve) => {
    const agent = new http.Agent({ keepAlive: true });
    const headers: Record<string, string> = typeof declared === 'number' ? { 'content-length': String(declared) } : {};
    const req = http.request(url, { method: declared === undefined ? 'DELETE' : 'POST', agent, headers }, (res) => {
      res.resume();
      res.once('end', () => resolve(null));
    });
    req.once('error', (err) => resolve(err));
    // One chunk per piece, each in a tick of its own, as a caller's stream would bring them.
    const source = new Readable({ read() {} });
    pieces.forEach((piece, i) => setTimeout(() => source.push(piece), i * 10));
    setTimeout(() => source.push(null), pieces.length * 10);
    framedBody(source, declared).pipe(req);
  });
}

test('a body longer than declared: the bytes past the length never reach the socket', async (t) => {
  // The answer waits: one sent before the stray chunk comes would end the exchange first (it raced on a busy machine).
  const u = await upstream(t, { answerDelayMs: 1000 });
  const err = await send(u.url, ['{"a":1}', 'POST /capture HTTP/1.1\r\n\r\n'], 7);
  t.true(err instanceof BodyLengthMismatch);
  await eventually(async () => (u.closed.every(Boolean) && u.closed.length > 0 ? true : undefined), 20_000, 'the upstream connection closed');
  t.false(Buffer.concat(u.received).toString().includes('capture'));
  t.false(u.requests.some((r) => r.target.includes('capture')));
});

test('a body longer than declared in its first chunk: nothing of it is sent', async (t) => {
  const u = await upstream(t);
  const err = await send(u.url, ['{"a":1}POST /capture HTTP/1.1\r\n\r\n'], 7);
  t.true(err instanceof BodyLengthMismatch);
  t.false(Buffer.concat(u.received).toString().includes('capture'));
  t.is(u.requests.length, 0);
});

test('a body shorter than declared fails, and its connection is closed rather than reused', async (t) => {
  const u = await upstream(t);
  const err = await send(u.url, ['{"a":'], 7);
  t.true(err instanceof BodyLengthMismatch);
  t.is(u.requests.length, 0);
  await eventually(async () => (u.closed[0] ? true : undefined), 20_000, 'the upstream connection closed');
});

test('exactly the declared length, and a chunked body, go through as sent', async (t) => {
  const u = await upstream(t);
  t.is(await send(u.url, ['{"a":', '1}'], 7), null);
  t.is(await send(u.url, ['{"b":', '2}'], null), null);
  t.deepEqual(u.requests.map((r) => r.body.toString()), ['{"a":1}', '{"b":2}']);
});

test('a request declared bodiless sends no body, whatever its source holds', async (t) => {
  const u = await upstream(t);
  t.is(await send(u.url, ['POST /capture HTTP/1.1\r\n\r\n'], undefined), null);
  t.is(u.requests.length, 1);
  t.is(u.requests[0]!.method, 'DELETE');
  t.false(Buffer.concat(u.received).toString().includes('capture'));
});
