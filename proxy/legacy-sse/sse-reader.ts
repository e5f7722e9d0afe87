// Reads a text/event-stream (the HTML living standard's format) into events: `event` and `data`
// fields, a blank line ends an event, comments and unknown fields are skipped. An event over
// `maxEventBytes` ends the stream with an error rather than growing without bound.
import type { Readable } from 'node:stream';

export interface SseEvent {
  /** `message` when the event names none. */
  event: string;
  data: string;
}

export class SseEventTooLarge extends Error {}

export function readSse(stream: Readable, onEvent: (event: SseEvent) => void, maxEventBytes: number): Promise<void> {
  let buffered = '';
  let event = '';
  let data: string[] = [];
  let size = 0;
  const line = (text: string) => {
    if (text === '') {
      if (data.length) onEvent({ event: event || 'message', data: data.join('\n') });
      event = '';
      data = [];
      size = 0;
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + (text[colon + 1] === ' ' ? 2 : 1));
    if (field === 'event') event = value;
    else if (field === 'data') {
      data.push(value);
      size += value.length;
    }
  };
  stream.setEncoding('utf8');
  let skipLf = false;
  return new Promise((resolve, reject) => {
    stream.on('data', (chunk: string) => {
      // A \r\n split across two chunks is one line end, not two.
      if (skipLf && chunk.startsWith('\n')) chunk = chunk.slice(1);
      skipLf = chunk.endsWith('\r');
      buffered += chunk;
      const lines = buffered.split(/\r\n|\r|\n/);
      buffered = lines.pop()!;
      try {
        for (const text of lines) {
          line(text);
          if (size > maxEventBytes) break;
        }
      } catch (err) {
        return void stream.destroy(err as Error); // a listener's failure ends the stream, not the process
      }
      if (buffered.length + size > maxEventBytes) stream.destroy(new SseEventTooLarge(`an SSE event over ${maxEventBytes} bytes`));
    });
    stream.once('end', () => resolve());
    stream.once('error', reject);
    stream.once('close', () => resolve());
  });
}
