// How the caller framed its request body, and whether that framing is one that every parser on
// the way would read alike. The proxy never forwards the caller's framing (forward-headers.ts):
// it frames the upstream request itself from what is decided here, so a request the caller and
// the proxy would split differently must never get that far (issue 22: a chunked DELETE relayed
// with `content-length: 0` carried a second request to the upstream, on a socket the next
// owner's request then used).
//
// Node's parser (llhttp, strict unless --insecure-http-parser) already refuses both headers at
// once, repeated or listed Content-Lengths, a Transfer-Encoding whose last coding is not chunked,
// whitespace before a colon, obs-fold, malformed chunk sizes and chunk extensions (bare LF,
// control characters, over 16 KiB). It lets through what is checked here: `gzip, chunked`,
// Transfer-Encoding sent twice (`x` then `chunked`), Transfer-Encoding on HTTP/1.0, and a body on
// GET or DELETE. Everything llhttp refuses is checked here again, so that a lenient parser (a
// future Node, or insecureHTTPParser) cannot reopen it; test/proxy/smuggling.test.ts drives it all
// from raw sockets.
import type { IncomingMessage } from 'node:http';
import { ProblemError } from '../contract/problem';

/** The body's length when the caller declared one; null: chunked, known only at its end. */
export type BodyLength = number | null;

const BODYLESS = new Set(['GET', 'DELETE']);
const DIGITS = /^\d+$/;

export class FramingRefusal extends ProblemError {
  constructor(detail: string) {
    super(400, detail, 'ambiguous-framing');
  }
}

/** The body's length as declared (0: no body), or a FramingRefusal for framing the proxy will not relay. */
export function requestBodyLength(req: IncomingMessage): BodyLength | FramingRefusal {
  let lengths = 0;
  let codings = 0;
  let length = '';
  let coding = '';
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    // Most headers are neither: the first letter spares the comparison.
    const first = name.charCodeAt(0) | 0x20;
    if (first === 0x63 && name.length === 14 && name.toLowerCase() === 'content-length') {
      lengths++;
      length = raw[i + 1]!;
    } else if (first === 0x74 && name.length === 17 && name.toLowerCase() === 'transfer-encoding') {
      codings++;
      coding = raw[i + 1]!;
    }
  }
  if (lengths === 0 && codings === 0) return 0;
  if (lengths && codings) return new FramingRefusal('The request has both Content-Length and Transfer-Encoding.');
  if (lengths > 1) return new FramingRefusal('The request has more than one Content-Length.');
  if (codings > 1) return new FramingRefusal('The request has more than one Transfer-Encoding.');
  const bodyless = BODYLESS.has(req.method ?? '');
  if (codings) {
    if (req.httpVersion !== '1.1') return new FramingRefusal('Transfer-Encoding is not allowed before HTTP/1.1.');
    if (coding.trim().toLowerCase() !== 'chunked') return new FramingRefusal('The only transfer coding accepted is chunked.');
    if (bodyless) return new FramingRefusal(`A ${req.method} request to the MCP endpoint has no body.`);
    return null;
  }
  const value = length.trim();
  const bytes = DIGITS.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(bytes)) return new FramingRefusal('The Content-Length is not a number of bytes.');
  if (bodyless && bytes > 0) return new FramingRefusal(`A ${req.method} request to the MCP endpoint has no body.`);
  return bytes;
}
