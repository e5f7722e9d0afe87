// The body as it goes upstream, held to the framing the proxy declared for it. http-proxy pipes
// whatever it is given as `buffer` into the upstream request; given this instead of the caller's
// stream, a request without a body sends none (whatever the caller's stream holds), and a body
// that runs past its declared length, or ends short of it, destroys the upstream request before
// the stray bytes are written: the exchange fails (502) and the socket is never reused. The
// caller's parser already holds a Content-Length body to its length, so this is the second lock,
// the one that holds should a retry's copy or a lenient parser ever disagree.
//
// Node's own `strictContentLength` is no use here: it is not applied to a Content-Length set as a
// header (Node 20), and where it is, it throws from write(), which inside a pipe is an uncaught
// exception.
import type { Readable, Writable } from 'node:stream';

export class BodyLengthMismatch extends Error {
  readonly code = 'BODY_LENGTH_MISMATCH';
  constructor(sent: number, declared: number) {
    super(`request body of ${sent} bytes or more where ${declared} were declared`);
  }
}

/** What http-proxy's `buffer` option needs: something it pipes into the upstream request. */
export interface BodySource {
  pipe<T extends Writable>(dest: T): T;
}

/**
 * `source` piped to the upstream request: undefined `length` sends no body at all, null lets a
 * chunked body through as it comes (its framing is the upstream request's own), a number holds it
 * to exactly that many bytes. A body already in hand (read whole, or kept for a retry) is written
 * in one call, without a stream: the cheapest way, and its length is known before anything goes.
 */
export function framedBody(source: Readable | Buffer, length: number | null | undefined): BodySource {
  return {
    pipe<T extends Writable>(dest: T): T {
      if (length === undefined) return dest.end() as T;
      if (Buffer.isBuffer(source)) {
        if (length === null || source.length === length) return dest.end(source) as T;
        return dest.destroy(new BodyLengthMismatch(source.length, length)) as T;
      }
      if (length !== null) holdTo(source, dest, length);
      return source.pipe(dest);
    },
  };
}

/**
 * Counts each chunk before the pipe writes it (listeners run in the order they were added).
 * Past the length the upstream request is destroyed first, so the pipe's write of that chunk,
 * which the emitter still makes, goes to a destroyed request and never reaches the socket.
 */
function holdTo(source: Readable, dest: Writable, length: number): void {
  let sent = 0;
  const fail = () => {
    source.off('data', count);
    source.off('end', ended);
    source.unpipe(dest);
    dest.destroy(new BodyLengthMismatch(sent, length));
  };
  const count = (chunk: Buffer) => {
    sent += chunk.length;
    if (sent > length) fail();
  };
  const ended = () => {
    source.off('data', count);
    if (sent !== length) fail();
  };
  source.on('data', count);
  source.once('end', ended);
}
