// A loopback HTTP/1.1 server built on raw sockets, for the request-smuggling tests: it keeps every
// byte each connection brings, parses requests out of them the way a plain keep-alive server does
// (Content-Length, else chunked, else no body; nothing lenient, nothing strict), and answers each
// one with a small JSON-RPC result. Node's own HTTP server is no use here: its parser refuses the
// very bytes the test must see arriving.
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface ParsedRequest {
  /** Which upstream connection carried it (0, 1, … in the order they were accepted). */
  connection: number;
  method: string;
  target: string;
  /** Header names lower-cased, values as sent; a name sent twice keeps both. */
  headers: [string, string][];
  body: Buffer;
  /** The request's bytes exactly as they came off the socket. */
  raw: Buffer;
}

export interface RawUpstream {
  url: string;
  requests: ParsedRequest[];
  /** Every byte each connection brought, in order; index = connection number. */
  received: Buffer[];
  /** Bytes a connection brought that do not (yet) make a whole request. */
  leftover(connection: number): Buffer;
  /** Whether the other side has closed the connection. */
  closed: boolean[];
  header(request: ParsedRequest, name: string): string | undefined;
  close(): Promise<void>;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** `answerDelayMs`: how long each answer waits after its request is whole (default: none). */
export async function startRawUpstream(options: { answerDelayMs?: number } = {}): Promise<RawUpstream> {
  const requests: ParsedRequest[] = [];
  const received: Buffer[] = [];
  const pending: Buffer[] = [];
  const closed: boolean[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    const connection = received.length;
    received.push(Buffer.alloc(0));
    pending.push(Buffer.alloc(0));
    closed.push(false);
    sockets.add(socket);
    socket.on('close', () => {
      closed[connection] = true;
      sockets.delete(socket);
    });
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      received[connection] = Buffer.concat([received[connection]!, chunk]);
      pending[connection] = Buffer.concat([pending[connection]!, chunk]);
      for (;;) {
        const parsed = parseOne(pending[connection]!, connection);
        if (parsed === null) return;
        if (parsed === 'bad') {
          socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
          return;
        }
        requests.push(parsed);
        pending[connection] = pending[connection]!.subarray(parsed.raw.length);
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { seen: requests.length } });
        const answer = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
        if (options.answerDelayMs) setTimeout(() => socket.destroyed || socket.write(answer), options.answerDelayMs);
        else socket.write(answer);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    requests,
    received,
    leftover: (connection) => pending[connection] ?? Buffer.alloc(0),
    closed,
    header: (request, name) => request.headers.find(([n]) => n === name)?.[1],
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One whole request at the start of `data`; null: not all here yet; 'bad': not HTTP. */
function parseOne(data: Buffer, connection: number): ParsedRequest | null | 'bad' {
  const end = data.indexOf(HEAD_END);
  if (end === -1) return data.length > 65_536 ? 'bad' : null;
  const [requestLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const match = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(requestLine ?? '');
  if (!match) return 'bad';
  const headers: [string, string][] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return 'bad';
    headers.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  const bodyStart = end + HEAD_END.length;
  const te = headers.find(([n]) => n === 'transfer-encoding')?.[1];
  const cl = headers.find(([n]) => n === 'content-length')?.[1];
  let body: { bytes: Buffer; end: number } | null | 'bad';
  if (te !== undefined && /chunked/i.test(te)) body = chunkedBody(data, bodyStart);
  else if (cl !== undefined) body = lengthBody(data, bodyStart, Number(cl));
  else body = { bytes: Buffer.alloc(0), end: bodyStart };
  if (body === null || body === 'bad') return body;
  return { connection, method: match[1]!, target: match[2]!, headers, body: body.bytes, raw: data.subarray(0, body.end) };
}

function lengthBody(data: Buffer, start: number, length: number): { bytes: Buffer; end: number } | null | 'bad' {
  if (!Number.isSafeInteger(length) || length < 0) return 'bad';
  if (data.length < start + length) return null;
  return { bytes: data.subarray(start, start + length), end: start + length };
}

function chunkedBody(data: Buffer, start: number): { bytes: Buffer; end: number } | null | 'bad' {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) return null;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1').split(';')[0]!, 16);
    if (!Number.isSafeInteger(size) || size < 0) return 'bad';
    at = lineEnd + 2;
    if (size === 0) {
      // Trailers, if any, up to the empty line.
      for (;;) {
        const trailerEnd = data.indexOf('\r\n', at);
        if (trailerEnd === -1) return null;
        const empty = trailerEnd === at;
        at = trailerEnd + 2;
        if (empty) return { bytes: Buffer.concat(parts), end: at };
      }
    }
    if (data.length < at + size + 2) return null;
    parts.push(data.subarray(at, at + size));
    at += size + 2;
  }
}
