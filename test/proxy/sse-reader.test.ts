// The SSE reader of the legacy bridge: events split anywhere across chunks (a CRLF too), comments
// and unknown fields skipped, multi-line data joined, and an event over the limit ends the stream.
import { PassThrough } from 'node:stream';
import test from 'ava';
import { readSse, SseEventTooLarge, type SseEvent } from '../../proxy/legacy-sse/sse-reader';
import { paramsOf, sessionIdOf } from '../../proxy/legacy-sse/bridge-session-id';

async function read(chunks: string[], max = 1024): Promise<{ events: SseEvent[]; error: unknown }> {
  const stream = new PassThrough();
  const events: SseEvent[] = [];
  const done = readSse(stream, (e) => events.push(e), max).then(() => null, (err: unknown) => err);
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  return { events, error: await done };
}

test('events are read however the bytes are cut', async (t) => {
  const text = ': comment\r\nevent: endpoint\r\ndata: /messages?sessionId=1\r\n\r\nid: 7\ndata: {"a":\ndata: 1}\nretry: 5\n\n';
  const whole = await read([text]);
  t.deepEqual(whole.events, [{ event: 'endpoint', data: '/messages?sessionId=1' }, { event: 'message', data: '{"a":\n1}' }]);
  for (let cut = 1; cut < text.length; cut++) {
    t.deepEqual((await read([text.slice(0, cut), text.slice(cut)])).events, whole.events, `cut at ${cut}`);
  }
});

test('an event over the limit ends the stream with an error', async (t) => {
  const { events, error } = await read([`data: ${'x'.repeat(600)}\n`, `data: ${'y'.repeat(600)}\n\n`], 1000);
  t.deepEqual(events, []);
  t.true(error instanceof SseEventTooLarge);
});

test('a session id carries the initialize parameters; anything else is no session', (t) => {
  const params = { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } };
  const id = sessionIdOf(params);
  t.regex(id, /^[\x21-\x7e]+$/, 'visible ASCII, as MCP asks of session ids');
  t.deepEqual(paramsOf(id), params);
  t.not(sessionIdOf(params), id, 'two sessions of the same client differ');
  t.is(paramsOf('sse1.x.bm90IGpzb24'), null);
  t.is(paramsOf('a-uuid-of-another-server'), null);
  const huge = { ...params, capabilities: { experimental: { blob: 'z'.repeat(10_000) } } };
  t.deepEqual(paramsOf(sessionIdOf(huge))?.capabilities, {}, 'cut down to fit a header');
});
