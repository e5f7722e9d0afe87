// Stdio MCP frames messages as newline-delimited JSON. Both sources feed raw chunks here.
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export class LineDecoder {
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly onmessage: (message: JSONRPCMessage) => void,
    private readonly onerror: (error: Error) => void,
  ) {}

  push(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch (error) {
      this.onerror(asError(error));
      return;
    }
    for (;;) {
      const message = this.next();
      if (message === null) return;
      if (message !== undefined) this.onmessage(message);
    }
  }

  /** null: no complete line yet; undefined: a line that was not JSON-RPC (skipped). */
  private next(): JSONRPCMessage | null | undefined {
    try {
      return this.buffer.readMessage();
    } catch {
      // The line is already consumed; its content is not echoed because it may hold anything.
      this.onerror(new Error('stdio server wrote a line that is not a JSON-RPC message'));
      return undefined;
    }
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
