// Between node:http and the SDK's web-standard handlers: a Request built from the caller's
// request (its body already read and checked); the answer goes back by platform/web-response.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
export { writeWebResponse } from '../../platform/web-response';

// Never the caller's credentials: the SDK has no use for them, and they must go nowhere.
const DROPPED = new Set(['authorization', 'cookie', 'host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);

export function webRequest(req: IncomingMessage, body: Buffer | null, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || DROPPED.has(name)) continue;
    for (const one of [value].flat()) headers.append(name, one);
  }
  const init: RequestInit = { method: req.method, headers, signal };
  if (body && req.method === 'POST') init.body = new Uint8Array(body);
  return new Request(new URL(req.url ?? '/', 'http://toolset.invalid'), init);
}

/** An abort signal that fires when the client leaves before its answer was written. */
export function leaveSignal(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}
