// The members' tool lists, cached per member and owner (never across owners: the key holds the
// connector's owner as the route names it), for the member's own `ttlMs` where its answer gives
// one (2026-07-28; 0 or less: not reused), else `ttlMs`, and only for the token and target they
// were fetched with (its `cacheScope` needs nothing more: nothing is shared between owners): a member that reconnects, refreshes or moves is asked again. A member's
// list_changed, or its state change seen by this process, drops its lists at once. A 2025 member
// may list tools by what the client declared (a tool that asks for elicitation is listed only to a
// client that can answer it), so lists are kept apart by what members were told of the client too.
import type { ConnectedRoute } from '../route';

/** A member's tool as it lists it (only its name is read; the rest is passed on). */
export type Tool = { name: string } & Record<string, unknown>;

interface Entry {
  tools: Promise<Tool[]>;
  stamp: string;
  at: number;
  /** The member's own ttlMs, once its answer is in. */
  ttlMs?: number;
}

/** A member's answer: its tools and, where it said, for how long they hold. */
export interface ToolList {
  tools: Tool[];
  ttlMs?: number;
}

const MAX_MEMBER_TTL_MS = 10 * 60_000;

export class ToolCatalog {
  private readonly byConnector = new Map<string, Map<string, Entry>>();

  constructor(private readonly ttlMs = 30_000, private readonly now: () => number = () => performance.now(), private readonly maxConnectors = 10_000) {}

  /** `variant`: what else the list depends on (the client's capabilities as the member was told them). */
  tools(connectorId: string, route: ConnectedRoute, fetch: () => Promise<ToolList>, variant = ''): Promise<Tool[]> {
    const owner = `${route.owner ?? ''}\n${variant}`;
    const stamp = `${route.target}\u0000${route.sealedToken ?? ''}`;
    const entries = this.byConnector.get(connectorId) ?? new Map<string, Entry>();
    const entry = entries.get(owner);
    if (entry && entry.stamp === stamp && this.now() - entry.at < (entry.ttlMs ?? this.ttlMs)) return entry.tools;
    const fresh: Entry = { tools: Promise.resolve([]), stamp, at: this.now() };
    fresh.tools = fetch().then((list) => {
      if (typeof list.ttlMs === 'number') fresh.ttlMs = Math.min(list.ttlMs, MAX_MEMBER_TTL_MS);
      return list.tools;
    });
    const tools = fresh.tools;
    entries.set(owner, fresh);
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
