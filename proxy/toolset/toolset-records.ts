// Toolsets as this process last read them, for a second at most (like routes), so that a burst
// of MCP requests reads the database once; a change the API in this process made drops its entry.
import type { ToolsetRecord } from '../../contract/toolset-record';
import type { ToolsetSource } from './toolset-source';

export class ToolsetRecords {
  private readonly entries = new Map<string, { record: Promise<ToolsetRecord | null>; at: number }>();

  constructor(private readonly source: ToolsetSource, private readonly ttlMs = 1000, private readonly maxEntries = 10_000) {}

  get(id: string): Promise<ToolsetRecord | null> {
    const entry = this.entries.get(id);
    if (entry && performance.now() - entry.at < this.ttlMs) return entry.record;
    const record = this.source.toolset(id);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { record, at: performance.now() });
    record.catch(() => this.entries.delete(id));
    return record;
  }

  invalidate(id: string): void {
    this.entries.delete(id);
  }
}
