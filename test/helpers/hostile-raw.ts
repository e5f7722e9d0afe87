// Requests no HTTP client would send (non-ASCII bytes in the target, oversized headers, an
// unknown method token, conflicting framing), written byte for byte on a socket. These are
// refused by Node's HTTP parser before any handler runs.
import net from 'node:net';
import type { Answer } from './hostile-send';

const TIMEOUT_MS = 10_000;

/** Writes `request` and reads until the server closes or the answer is complete. */
export function sendRaw(port: number, request: Buffer | string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error('no answer in time')), TIMEOUT_MS);
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const answer = parse(Buffer.concat(chunks));
      if (answer) socket.end();
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      const answer = parse(Buffer.concat(chunks), true);
      if (answer) resolve(answer);
      else reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const answer = parse(Buffer.concat(chunks), true);
      if (answer) resolve(answer);
      else reject(new Error('connection closed without an answer'));
    });
    socket.write(request);
  });
}

/** The answer once its head and (by Content-Length, or at close) its body are in; else null. */
function parse(data: Buffer, closed = false): Answer | null {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  if (!status) return null;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = data.subarray(end + 4);
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  if (length !== undefined ? body.length < length : !closed) return null;
  return { status, headers, text: body.subarray(0, length).toString('utf8') };
}
