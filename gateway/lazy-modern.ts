// The 2026-07-28 endpoint, loaded (with the SDK v2 server package) by the first request that may
// be a 2026-07-28 one: a gateway whose clients all speak 2025 never pays for it (modern-wire.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../platform/logger';
import type { ModernEndpoint } from './modern-endpoint';
import type { Upstream } from './upstream';

/** What the router tells 2026-07-28 clients about (their subscriptions/listen streams). */
export interface ChangeNews {
  toolsChanged(): void;
  promptsChanged(): void;
  resourcesChanged(): void;
  resourceUpdated(uri: string): void;
}

export class LazyModernEndpoint {
  private loading?: Promise<{ endpoint: ModernEndpoint; isLegacy: (req: IncomingMessage, body: unknown) => boolean }>;
  private loaded?: ModernEndpoint;

  constructor(private readonly upstream: Upstream, private readonly logger: Logger) {}

  /**
   * Serves the POST when the SDK classifies it as 2026-07-28 traffic (or refuses it); false when
   * it is 2025 traffic after all, left for the sessions.
   */
  async serveIfModern(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<boolean> {
    const { endpoint, isLegacy } = await this.load();
    if (isLegacy(req, body)) return false;
    await endpoint.serve(req, res, body);
    return true;
  }

  /** No endpoint loaded means no listen stream open: the news has nobody to reach. */
  readonly news: ChangeNews = {
    toolsChanged: () => this.loaded?.notify.toolsChanged(),
    promptsChanged: () => this.loaded?.notify.promptsChanged(),
    resourcesChanged: () => this.loaded?.notify.resourcesChanged(),
    resourceUpdated: (uri) => this.loaded?.notify.resourceUpdated(uri),
  };

  async close(): Promise<void> {
    await this.loaded?.close();
  }

  private load(): ReturnType<LazyModernEndpoint['loadOnce']> {
    this.loading ??= this.loadOnce();
    return this.loading;
  }

  private async loadOnce() {
    const { ModernEndpoint, isLegacyPost } = await import('./modern-endpoint');
    const endpoint = new ModernEndpoint(this.upstream, this.logger);
    this.loaded = endpoint;
    return { endpoint, isLegacy: isLegacyPost };
  }
}
