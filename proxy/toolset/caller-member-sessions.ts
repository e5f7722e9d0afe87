// 2026-07-28 callers have no session, but a 2025 member keeps state in its own: each caller gets
// member sessions of its own (per toolset and member), never one shared between callers, kept in
// this process and bounded (`maxEntries`, the one unused longest closed first). Another replica
// opens its own for the same caller: nothing of a 2026 request depends on which one it reaches.
// Members are told of no client capability, unless the toolset puts members' requests to 2026
// clients as input_required (member-continuations.ts): then elicitation and sampling.
import { LEGACY_VERSIONS } from './rpc';
import { TOOLSET_CLIENT_INFO, type MemberSession } from './member-wire';
import type { MemberSessions } from './member-link';

export type Evicted = (connectorId: string, session: MemberSession) => void;

export class CallerMemberSessions {
  private readonly sessions = new Map<string, MemberSession>();

  constructor(private readonly onEvict: Evicted, private readonly maxEntries = 10_000) {}

  /** The caller's member sessions on a toolset; `capabilities`: what members are told the client can answer (member-continuations.ts). */
  of(toolsetId: string, caller: string, capabilities: Record<string, unknown> = {}): MemberSessions {
    const keyOf = (connectorId: string) => `${toolsetId}\n${caller}\n${connectorId}`;
    return {
      protocolVersion: LEGACY_VERSIONS[0]!,
      clientCapabilities: capabilities,
      clientInfo: TOOLSET_CLIENT_INFO,
      get: (connectorId) => this.get(keyOf(connectorId)),
      keep: async (connectorId, fresh, replacing) => {
        const key = keyOf(connectorId);
        const current = this.sessions.get(key);
        if (current && current.sessionId !== replacing?.sessionId) return current;
        this.set(key, fresh);
        return fresh;
      },
    };
  }

  /** Forgets a toolset's sessions (it changed or went); members forget theirs when idle. */
  forgetToolset(toolsetId: string): void {
    for (const key of this.sessions.keys()) if (key.startsWith(`${toolsetId}\n`)) this.sessions.delete(key);
  }

  private get(key: string): MemberSession | undefined {
    const session = this.sessions.get(key);
    if (session) {
      this.sessions.delete(key); // Map order is the order of last use
      this.sessions.set(key, session);
    }
    return session;
  }

  private set(key: string, session: MemberSession): void {
    this.sessions.delete(key);
    this.sessions.set(key, session);
    if (this.sessions.size <= this.maxEntries) return;
    const [oldestKey, oldest] = this.sessions.entries().next().value!;
    this.sessions.delete(oldestKey);
    this.onEvict(oldestKey.slice(oldestKey.lastIndexOf('\n') + 1), oldest);
  }
}
