// Which revision each member speaks, learnt the way a dual-era client learns it: `server/discover`
// at 2026-07-28, which a 2026 server answers with the versions it supports and a 2025 server
// refuses. Remembered per member and target in this process for `ttlMs` (default 10 minutes):
// each replica asks once in a while, and a member that moves or reconnects elsewhere is asked anew.
import type { UpstreamClient } from '../upstream-client';
import { responseOf } from './member-answer';
import { TOOLSET_CLIENT_INFO, modernHeaders, type MemberTarget } from './member-wire';
import { META, MODERN_VERSION, type RpcMessage } from './rpc';

export type Era = 'modern' | 'legacy';

const DISCOVER_ID = 'toolset-discover';

export class MemberEras {
  private readonly known = new Map<string, { era: Promise<Era>; at: number }>();

  constructor(private readonly upstream: UpstreamClient, private readonly ttlMs = 10 * 60_000, private readonly maxEntries = 10_000) {}

  of(target: MemberTarget, signal?: AbortSignal): Promise<Era> {
    // An HTTP+SSE server (2024-11-05) is a session-keeping one, reached through the bridge: nothing to probe.
    if (target.route.transport === 'sse') return Promise.resolve('legacy');
    const key = `${target.connectorId}\n${target.route.target}`;
    const entry = this.known.get(key);
    if (entry && performance.now() - entry.at < this.ttlMs) return entry.era;
    const era = this.probe(target, signal);
    if (this.known.size >= this.maxEntries) this.known.delete(this.known.keys().next().value!);
    this.known.set(key, { era, at: performance.now() });
    era.catch(() => this.known.delete(key)); // a probe that failed says nothing: the next request asks again
    return era;
  }

  private async probe(target: MemberTarget, signal?: AbortSignal): Promise<Era> {
    const discover: RpcMessage = {
      jsonrpc: '2.0', id: DISCOVER_ID, method: 'server/discover',
      params: { _meta: { [META.protocolVersion]: MODERN_VERSION, [META.clientInfo]: TOOLSET_CLIENT_INFO, [META.clientCapabilities]: {} } },
    };
    const { answer } = await this.upstream.send(target.connectorId, target.route, {
      method: 'POST', headers: modernHeaders(discover), body: Buffer.from(JSON.stringify(discover)), signal,
    });
    if (answer.statusCode !== 200) {
      answer.resume();
      return 'legacy';
    }
    const versions = (await responseOf(answer, DISCOVER_ID))?.result?.supportedVersions;
    return Array.isArray(versions) && versions.includes(MODERN_VERSION) ? 'modern' : 'legacy';
  }
}
