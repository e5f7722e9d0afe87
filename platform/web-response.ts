// A web-standard Response (what the MCP SDK v2's HTTP handlers answer) written to a node:http
// response as it streams; shared by the stdio gateway and the toolsets' endpoint.
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';

export function writeWebResponse(response: Response, res: ServerResponse): void {
  if (res.destroyed) return;
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  // A stream may stay quiet for long after its head (a GET stream waits for the server's first
  // message): the client learns at once that it is open, as the connector path's clients do.
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) res.flushHeaders();
  const body = Readable.fromWeb(response.body as unknown as NodeReadableStream<Uint8Array>);
  // A client that leaves ends the stream (and with it the exchange: the SDK cancels upstream).
  res.once('close', () => body.destroy());
  body.on('error', () => res.destroy());
  body.pipe(res);
}
