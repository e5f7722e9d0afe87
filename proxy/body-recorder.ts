// A copy of the caller's request body, kept while http-proxy streams it upstream, so that the
// request can be sent a second time after a token refresh. The upstream still gets the body as
// it arrives (nothing waits for the copy); bodies over the limit are not kept, and their
// requests are not retried. MCP requests are single JSON-RPC messages, far below the limit.
import type { IncomingMessage } from 'node:http';

export class BodyRecorder {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private overflowed: boolean;

  /** Attach once http-proxy has piped `req`, so that both see every chunk. One listener: this is per request. */
  constructor(private readonly req: IncomingMessage, private readonly limit: number) {
    this.overflowed = Number(req.headers['content-length'] ?? 0) > limit;
    if (!this.overflowed) req.on('data', this.record);
  }

  /** The whole body once the caller has sent it all, or null when it is not kept. */
  async whole(): Promise<Buffer | null> {
    if (this.overflowed) return null;
    if (!this.req.readableEnded && !(await this.rest())) return null;
    if (this.overflowed) return null;
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
  }

  /** An upstream may answer before reading the whole body; the rest must still come in. */
  private rest(): Promise<boolean> {
    const { req } = this;
    if (req.destroyed) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      req.once('end', () => resolve(true));
      req.once('close', () => resolve(req.readableEnded)); // a body cut short is not a body
      req.resume(); // the upstream request it was piped to may have let go of it
    });
  }

  private readonly record = (chunk: Buffer): void => {
    this.size += chunk.length;
    if (this.size <= this.limit) {
      this.chunks.push(chunk);
      return;
    }
    this.overflowed = true;
    this.chunks.length = 0;
    this.req.off('data', this.record);
  };
}
