// What makes a toolset's list change, watched for the streams this replica holds (a 2025 session's
// GET stream, a 2026 subscriptions/listen stream): the toolset's record (its members, their
// filters, its access rules) and its members' routes (a member connected, disconnected, moved).
// A change may be made through any replica, or none (a token refused upstream), so the replica
// holding a stream does not wait to be told: every `intervalMs` it reads each watched toolset and
// its members' routes, and its listeners hear of any difference. A change this process makes or
// hears of (the API beside it, a member's list_changed) reaches them at once.
export type ChangeListener = () => void;

/**
 * What a toolset's lists depend on, as one string, its members, and those of them the replica may
 * listen to with their own tokens (their owner is the toolset's); null when the toolset is gone.
 */
export type ReadFingerprint = (toolsetId: string) => Promise<{ fingerprint: string; members: readonly string[]; listen: readonly string[] } | null>;

interface Watched {
  listeners: Set<ChangeListener>;
  fingerprint?: string;
  members: ReadonlySet<string>;
  listen: readonly string[];
}

export class ChangeWatch {
  private readonly watched = new Map<string, Watched>();
  private timer?: NodeJS.Timeout;
  private ticking = false;
  /** Told of the members of every watched toolset to listen to, whenever that may have changed. */
  onListen?: (connectorIds: ReadonlySet<string>) => void;

  constructor(private readonly read: ReadFingerprint, private readonly intervalMs = 5000) {}

  /** `listener` hears of the toolset's changes until the returned function is called. */
  watch(toolsetId: string, listener: ChangeListener): () => void {
    let entry = this.watched.get(toolsetId);
    if (!entry) {
      entry = { listeners: new Set(), members: new Set(), listen: [] };
      this.watched.set(toolsetId, entry);
      void this.check(toolsetId, false);
    }
    entry.listeners.add(listener);
    this.timer ??= setInterval(() => void this.tick(), this.intervalMs).unref();
    return () => {
      entry.listeners.delete(listener);
      if (entry.listeners.size > 0 || this.watched.get(toolsetId) !== entry) return;
      this.watched.delete(toolsetId);
      this.tellListen();
      if (this.watched.size === 0) this.stop();
    };
  }

  /** The toolset changed (this process made the change): its listeners hear of it now. */
  toolsetChanged(toolsetId: string): void {
    this.notify(toolsetId);
    void this.check(toolsetId, false);
  }

  /** A member changed state or said its list changed: the toolsets holding it hear of it now. */
  memberChanged(connectorId: string): void {
    for (const [toolsetId, entry] of this.watched) if (entry.members.has(connectorId)) this.notify(toolsetId);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    if (this.ticking) return; // a slow read: the next tick goes on from where this one is
    this.ticking = true;
    try {
      for (const toolsetId of [...this.watched.keys()]) await this.check(toolsetId, true);
    } finally {
      this.ticking = false;
    }
  }

  private async check(toolsetId: string, tell: boolean): Promise<void> {
    const now = await this.read(toolsetId).catch(() => undefined);
    const entry = this.watched.get(toolsetId);
    if (now === undefined || !entry) return; // unknown for now: nothing to compare
    const fingerprint = now?.fingerprint ?? 'gone';
    entry.members = new Set(now?.members ?? []);
    if (String(entry.listen) !== String(now?.listen ?? [])) {
      entry.listen = now?.listen ?? [];
      this.tellListen();
    }
    if (tell && entry.fingerprint !== undefined && entry.fingerprint !== fingerprint) this.notify(toolsetId);
    entry.fingerprint = fingerprint;
  }

  private tellListen(): void {
    this.onListen?.(new Set([...this.watched.values()].flatMap((entry) => entry.listen)));
  }

  private notify(toolsetId: string): void {
    for (const listener of this.watched.get(toolsetId)?.listeners ?? []) listener();
  }
}
