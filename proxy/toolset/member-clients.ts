// The MCP clients a toolset holds to its members, opened lazily (the first list or call that
// needs a member) and closed together: a 2025-11-25 toolset session owns one set (its upstream
// sessions live and end with it); 2026-07-28 requests, which have no session, share one set per
// toolset. Each client is the SDK v2 client, negotiating the member's era itself.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { memberFetch, unavailableIn, type MemberUpstream } from './member-fetch';

const CLIENT_INFO = { name: 'connector-registry-toolset', version: '1.0.0' };

export class MemberClients {
  private readonly clients = new Map<string, Promise<Client>>();
  private closed = false;

  /** `onListChanged`: a member told its client that its tool list changed. */
  constructor(private readonly upstream: MemberUpstream, private readonly onListChanged: (connectorId: string) => void, private readonly timeoutMs = 15_000) {}

  /**
   * Runs `use` with the member's client. A client that fails for any reason but the member's
   * state is dropped, and `use` runs once more on a new one (a session the member forgot, a
   * connection cut).
   */
  async with<T>(connectorId: string, use: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await use(await this.client(connectorId));
    } catch (err) {
      const unavailable = unavailableIn(err);
      if (unavailable) throw unavailable;
      if (this.closed) throw err;
      await this.drop(connectorId);
      return use(await this.client(connectorId));
    }
  }

  async drop(connectorId: string): Promise<void> {
    const pending = this.clients.get(connectorId);
    this.clients.delete(connectorId);
    const client = await pending?.catch(() => null);
    await closeClient(client);
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(all.map(async (pending) => closeClient(await pending.catch(() => null))));
  }

  private client(connectorId: string): Promise<Client> {
    // A closed set opens nothing more: what it opened would never be closed.
    if (this.closed) return Promise.reject(new Error('the toolset session has ended'));
    let pending = this.clients.get(connectorId);
    if (!pending) {
      pending = this.open(connectorId);
      this.clients.set(connectorId, pending);
      pending.catch(() => {
        if (this.clients.get(connectorId) === pending) this.clients.delete(connectorId);
      });
    }
    return pending;
  }

  private async open(connectorId: string): Promise<Client> {
    const fetch = memberFetch(connectorId, this.upstream);
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: 'auto', probe: { timeoutMs: this.timeoutMs } } });
    client.setNotificationHandler('notifications/tools/list_changed', () => this.onListChanged(connectorId));
    // The URL is a placeholder: member-fetch sends every request to the member's current route.
    const transport = new StreamableHTTPClientTransport(new URL(`http://member.invalid/${connectorId}`), { fetch });
    await client.connect(transport, { timeout: this.timeoutMs });
    return client;
  }
}

async function closeClient(client: Client | null | undefined): Promise<void> {
  if (!client) return;
  const transport = client.transport as StreamableHTTPClientTransport | undefined;
  await transport?.terminateSession?.().catch(() => undefined);
  await client.close().catch(() => undefined);
}
