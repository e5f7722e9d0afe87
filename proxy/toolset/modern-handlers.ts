// 2026-07-28 requests go through the SDK's dual-era entry (createMcpHandler, strict: legacy
// traffic never reaches it), one per toolset, so that its subscriptions/listen streams hear the
// list changes of that toolset's members and no other's. Made as requests come, dropped (and
// their streams closed) when the toolset changes or has been unused longest past `maxHandlers`.
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Logger } from '../../platform/logger';
import type { ToolsetContext } from './toolset-context';
import { toolsetServer } from './toolset-server';

interface Entry {
  handler: McpHttpHandler;
  members: ReadonlySet<string>;
}

export class ModernHandlers {
  private readonly entries = new Map<string, Entry>();
  /** The context of each request: the SDK hands the factory the Request it was given. */
  private readonly contexts = new WeakMap<Request, ToolsetContext>();

  constructor(private readonly logger: Logger, private readonly maxHandlers = 1000) {}

  serve(request: Request, body: unknown, ctx: ToolsetContext): Promise<Response> {
    this.contexts.set(request, ctx);
    return this.entryOf(ctx).handler.fetch(request, { parsedBody: body });
  }

  /** A member's list changed: the listen streams of the toolsets holding it are told. */
  memberChanged(connectorId: string): void {
    for (const entry of this.entries.values()) if (entry.members.has(connectorId)) entry.handler.notify.toolsChanged();
  }

  toolsetChanged(toolsetId: string): void {
    const entry = this.entries.get(toolsetId);
    if (!entry) return;
    entry.handler.notify.toolsChanged();
    this.entries.delete(toolsetId);
    void entry.handler.close();
  }

  async close(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((e) => e.handler.close()));
  }

  private entryOf(ctx: ToolsetContext): Entry {
    const id = ctx.toolset.id;
    const members = new Set(ctx.toolset.members.map((m) => m.connector_id));
    let entry = this.entries.get(id);
    if (entry) {
      this.entries.delete(id); // Map order is the order of last use
      entry.members = members;
    } else {
      const handler = createMcpHandler(({ requestInfo }) => {
        const context = requestInfo && this.contexts.get(requestInfo);
        if (!context) throw new Error('a toolset request without its context');
        return toolsetServer(context);
      }, { legacy: 'reject', onerror: (error) => this.logger.debug({ err: error.message, toolsetId: id }, 'toolset request refused or failed') });
      entry = { handler, members };
      if (this.entries.size >= this.maxHandlers) {
        const oldest = this.entries.keys().next().value!;
        void this.entries.get(oldest)?.handler.close();
        this.entries.delete(oldest);
      }
    }
    this.entries.set(id, entry);
    return entry;
  }
}
