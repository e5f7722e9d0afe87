// What a member answers, read as JSON-RPC messages: one JSON body (a message, or a batch of them)
// or an SSE stream of events whose data are messages. Read as it arrives and bounded: a message
// larger than `limit` bytes ends the answer (the member broke it off, as far as the toolset is
// concerned), so that a member can never make the proxy hold more than that of it at once.
import type { IncomingMessage } from 'node:http';
import { asMessage, type RpcMessage } from './rpc';

export const MESSAGE_LIMIT = 16 * 1024 * 1024;

export class AnswerTooLarge extends Error {
  constructor(limit: number) {
    super(`a message of the MCP server is over ${limit} bytes`);
  }
}

export const isEventStream = (answer: IncomingMessage): boolean => String(answer.headers['content-type'] ?? '').startsWith('text/event-stream');
export const isJson = (answer: IncomingMessage): boolean => String(answer.headers['content-type'] ?? '').startsWith('application/json');

/** The messages of an answer, in order; nothing for an answer that is neither JSON nor SSE. */
export async function* messagesOf(answer: IncomingMessage, limit = MESSAGE_LIMIT): AsyncGenerator<RpcMessage> {
  if (isEventStream(answer)) {
    yield* eventMessages(answer, limit);
    return;
  }
  if (!isJson(answer)) {
    answer.resume();
    return;
  }
  const text = await wholeText(answer, limit);
  yield* parsed(text);
}

/** The answer's response to request `id` (its notifications passed by), or null when none came. */
export async function responseOf(answer: IncomingMessage, id: string | number): Promise<RpcMessage | null> {
  for await (const message of messagesOf(answer)) {
    if (message.method === undefined && message.id === id) return message;
  }
  return null;
}

/** The answer's body as text, whole; AnswerTooLarge past `limit`. */
export async function wholeText(answer: IncomingMessage, limit = MESSAGE_LIMIT): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      answer.destroy();
      throw new AnswerTooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

function* parsed(text: string): Generator<RpcMessage> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return;
  }
  for (const one of Array.isArray(value) ? value : [value]) {
    const message = asMessage(one);
    if (message) yield message;
  }
}

/** SSE (WHATWG "event stream" parsing): each event's data lines, joined, hold one message. */
async function* eventMessages(answer: IncomingMessage, limit: number): AsyncGenerator<RpcMessage> {
  answer.setEncoding('utf8');
  let buffer = '';
  let scanned = 0; // the part of the buffer known to hold no line end
  let data: string[] = [];
  let dataSize = 0;
  for await (const chunk of answer as AsyncIterable<string>) {
    buffer += chunk;
    let end: number;
    while ((end = lineEnd(buffer, scanned)) !== -1) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(buffer[end] === '\r' && buffer[end + 1] === '\n' ? end + 2 : end + 1);
      scanned = 0;
      if (line === '') {
        if (data.length) yield* parsed(data.join('\n'));
        data = [];
        dataSize = 0;
      } else if (line.startsWith('data:')) {
        const value = line.slice(line[5] === ' ' ? 6 : 5);
        dataSize += value.length;
        data.push(value);
      }
      if (dataSize > limit) break;
    }
    scanned = Math.max(0, buffer.length - 1);
    if (dataSize + buffer.length > limit) {
      answer.destroy();
      throw new AnswerTooLarge(limit);
    }
  }
}

/** Where the first line ends (CR, LF or CRLF); -1 while a CR may still be followed by its LF. */
function lineEnd(buffer: string, from: number): number {
  for (let i = from; i < buffer.length; i++) {
    const c = buffer.charCodeAt(i);
    if (c === 0x0a) return i;
    if (c === 0x0d) return i + 1 < buffer.length ? i : -1;
  }
  return -1;
}

/** Writes messages to a client as SSE events, waiting for the client to drain what it was sent. */
export class EventWriter {
  constructor(private readonly res: import('node:http').ServerResponse) {}

  /** Resolves once the client took it (false: the client is gone). */
  write(message: RpcMessage): Promise<boolean> {
    const res = this.res;
    if (res.destroyed || res.writableEnded) return Promise.resolve(false);
    if (res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        res.off('drain', onDrain);
        res.off('close', onClose);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      res.once('drain', onDrain);
      res.once('close', onClose);
    });
  }
}
