// The members' tool lists, cached per member and owner (never across owners: the key holds the
// connector's owner as the route names it), for `ttlMs`, and only for the token and target they
// were fetched with: a member that reconnects, refreshes or moves is asked again. A member's
// list_changed, or its state change seen by this process, drops its lists at once.
import type { Tool } from '@modelcontextprotocol/client';
import type { ConnectedRoute } from '../route';

interface Entry {
  tools: Promise<Tool[]>;
  stamp: string;
  at: number;
}

export class ToolCatalog {
  private readonly byConnector = new Map<string, Map<string, Entry>>();

  constructor(private readonly ttlMs = 30_000, private readonly now: () => number = () => performance.now(), private readonly maxConnectors = 10_000) {}

  tools(connectorId: string, route: ConnectedRoute, fetch: () => Promise<Tool[]>): Promise<Tool[]> {
    const owner = route.owner ?? '';
    const stamp = `${route.target}\u0000${route.sealedToken ?? ''}`;
    const entries = this.byConnector.get(connectorId) ?? new Map<string, Entry>();
    const entry = entries.get(owner);
    if (entry && entry.stamp === stamp && this.now() - entry.at < this.ttlMs) return entry.tools;
    const tools = fetch();
    entries.set(owner, { tools, stamp, at: this.now() });
    if (!this.byConnector.has(connectorId)) {
      if (this.byConnector.size >= this.maxConnectors) this.byConnector.delete(this.byConnector.keys().next().value!);
      this.byConnector.set(connectorId, entries);
    }
    // A failed fetch is not kept: the next list asks again.
    tools.catch(() => {
      if (entries.get(owner)?.tools === tools) entries.delete(owner);
    });
    return tools;
  }

  invalidate(connectorId: string): void {
    this.byConnector.delete(connectorId);
  }

  /** How many owners' lists are held for a connector (tests). */
  sizeOf(connectorId: string): number {
    return this.byConnector.get(connectorId)?.size ?? 0;
  }
}
