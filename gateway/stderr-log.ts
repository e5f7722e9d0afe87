// A stdio server's stderr is the server's to write: third-party text, possibly hostile. Passed on
// raw, a line such as `{"level":60,"msg":"..."}` would read as one of the service's own log lines,
// and escape sequences would steer the terminal. So each line is one log entry whose text is a
// field (`stderr`), with control characters escaped and the length cut, and a server that writes
// faster than a budget has the rest counted, not logged.
import type { Logger } from '../platform/logger';

/** Characters of one line kept in the log; the rest is dropped (`truncated: true`). */
export const STDERR_LINE_CHARS = 1_000;
/** Lines logged per window; beyond, lines are counted and the count logged when the window ends. */
export const STDERR_LINES_PER_WINDOW = 200;
const WINDOW_MS = 60_000;

export class StderrLog {
  private pending = '';
  /** The current line is past the cut: the rest of it is skipped up to its newline. */
  private skipping = false;
  private windowStart = Date.now();
  private logged = 0;
  private dropped = 0;

  constructor(private readonly logger: Logger, private readonly now: () => number = Date.now) {
    this.windowStart = now();
  }

  push(chunk: Buffer | string): void {
    const lines = (this.pending + chunk.toString()).split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) this.line(line);
    if (this.pending.length > STDERR_LINE_CHARS) {
      this.line(this.pending, true);
      this.pending = '';
    }
  }

  /** The stream ended: what is left is a line of its own. */
  end(): void {
    if (this.pending) this.line(this.pending);
    this.pending = '';
    this.closeWindow();
  }

  private line(text: string, unfinished = false): void {
    const wasSkipping = this.skipping;
    this.skipping = unfinished;
    if (wasSkipping) return; // the tail of a line already logged cut
    const line = text.replace(/\r$/, '');
    if (!this.withinBudget()) return;
    const truncated = line.length > STDERR_LINE_CHARS;
    this.logger.info({ stderr: escapeControls(line.slice(0, STDERR_LINE_CHARS)), ...(truncated ? { truncated } : {}) }, 'stdio server stderr');
  }

  private withinBudget(): boolean {
    if (this.now() - this.windowStart >= WINDOW_MS) this.closeWindow();
    if (this.logged < STDERR_LINES_PER_WINDOW) {
      this.logged++;
      return true;
    }
    this.dropped++;
    return false;
  }

  private closeWindow(): void {
    if (this.dropped > 0) this.logger.warn({ droppedLines: this.dropped }, 'stdio server wrote more to stderr than is logged; lines dropped');
    this.windowStart = this.now();
    this.logged = 0;
    this.dropped = 0;
  }
}

/** C0 controls (but tab), DEL and C1 controls as \xNN: nothing a terminal or a log reader acts on. */
export function escapeControls(text: string): string {
  return text.replace(/[\x00-\x08\x0a-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
