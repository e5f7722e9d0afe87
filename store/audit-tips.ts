// Where this process last linked each connector's audit chain. A proxy writes most of a
// connector's batches itself, so the batch it linked last is usually still the newest: starting
// there spares the two reads that find the newest (the hint, then the slot after it). Only a
// guess: where another writer has linked since, claiming the slot after it fails and the write
// walks on (call-audit-store.ts). Trusted for a minute, far inside any retention, so a guess never
// names a batch that may have expired; bounded, the connector written to the longest ago going first.

const TRUST_MS = 60_000;
const MAX_CONNECTORS = 10_000;

export class AuditTips {
  private readonly tips = new Map<string, { batch: string; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The batch this process linked last for the connector, if within the last minute. */
  get(connectorId: string): string | undefined {
    const tip = this.tips.get(connectorId);
    return tip && this.now() - tip.at < TRUST_MS ? tip.batch : undefined;
  }

  remember(connectorId: string, batch: string): void {
    this.tips.delete(connectorId); // Map order is the order of writes
    this.tips.set(connectorId, { batch, at: this.now() });
    if (this.tips.size > MAX_CONNECTORS) this.tips.delete(this.tips.keys().next().value!);
  }
}
