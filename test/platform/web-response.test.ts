// A web-standard Response written to node:http: an event stream's head reaches the client at once,
// before its first event (clients wait for the head before they read), and the body streams.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { writeWebResponse } from '../../platform/web-response';

test('an event stream sends its head before its first event, then streams', async (t) => {
  let push: ((text: string) => void) | undefined;
  const server = http.createServer((_req, res) => {
    const body = new ReadableStream<Uint8Array>({ start: (controller) => void (push = (text) => controller.enqueue(new TextEncoder().encode(text))) });
    writeWebResponse(new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }), res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  // fetch resolves on the head: before the fix it waited for a first event that never came.
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  t.is(response.status, 200);
  t.is(response.headers.get('content-type'), 'text/event-stream');
  const reader = response.body!.getReader();
  push!('data: one\n\n');
  const { value } = await reader.read();
  t.is(new TextDecoder().decode(value), 'data: one\n\n');
  await reader.cancel();
});
