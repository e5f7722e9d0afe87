// 2025-11-25 clients: `initialize` opens a session of the toolset's own, kept in the session store
// (MongoDB), so that whichever proxy replica a request reaches serves it and a session outlives the
// replica that opened it. A session is bound to the toolset and the caller who opened it (another
// caller's use, an unknown or an expired id: 404, as the revision says), expires after `idleMs`
// without use, and counts against its caller's cap (`maxPerOwner`, across replicas). Its members'
// upstream sessions are opened on demand by whichever replica needs one first, recorded in it for
// the others, and closed with it.
import type { IncomingMessage } from 'node:http';
import type { Caller } from '../../callers/caller';
import type { Logger } from '../../platform/logger';
import type { MemberSessionRecord, ToolsetRecord, ToolsetSessionRecord } from '../../contract/toolset-record';
import type { RouteSource } from '../route';
import type { MemberLink, MemberSessions } from './member-link';
import type { SessionStore } from './session-store';

export interface SessionLimits {
  /** Sessions one caller may hold at once, across replicas. */
  maxPerOwner: number;
  /** A session unused for this long is gone. */
  idleMs: number;
}

/** The idle timeout of a toolset session (docs/toolsets.md). */
export const DEFAULT_SESSION_LIMITS: SessionLimits = { maxPerOwner: 1000, idleMs: 30 * 60_000 };

/** A session found for a request: its id, whose it is, what it holds. */
export interface FoundSession {
  id: string;
  owner: string;
  record: ToolsetSessionRecord;
}

/** The key a caller's sessions are kept under (with callers off, everyone is one owner). */
export const ownerKey = (caller: Caller): string => caller.subject ?? '';

export class LegacySessions {
  /** Told when a request opens a member session, so that a stream this replica holds relays it at once. */
  onMemberSession?: (session: FoundSession) => void;

  constructor(
    private readonly store: SessionStore,
    private readonly link: MemberLink,
    private readonly routes: RouteSource,
    private readonly logger: Logger,
    readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
  ) {}

  /** A new session for the caller; null when the caller already holds as many as it may. */
  open(caller: Caller, session: Omit<ToolsetSessionRecord, 'members' | 'usedAt'>): Promise<string | null> {
    return this.store.open(ownerKey(caller), session, this.limits.maxPerOwner, this.limits.idleMs);
  }

  /** The caller's session the request names, on this toolset; null when there is none. */
  async find(req: IncomingMessage, toolset: ToolsetRecord, caller: Caller): Promise<FoundSession | null> {
    const id = req.headers['mcp-session-id'];
    if (typeof id !== 'string') return null;
    const owner = ownerKey(caller);
    const record = await this.store.get(owner, id, this.limits.idleMs);
    if (!record || record.toolsetId !== toolset.id) return null;
    this.used({ id, owner, record });
    return { id, owner, record };
  }

  /** Marks the session used, at most every tenth of the idle timeout (one write per session, not per request). */
  used(session: FoundSession): void {
    if (Date.now() - session.record.usedAt < this.limits.idleMs / 10) return;
    session.record.usedAt = Date.now();
    this.store.touch(session.owner, session.id).catch((err: unknown) => this.logger.warn({ err }, 'a toolset session could not be marked used'));
  }

  /** The member sessions of a toolset session, as the member link keeps them. */
  memberSessions(session: FoundSession): MemberSessions {
    const { record } = session;
    return {
      protocolVersion: record.protocolVersion,
      clientCapabilities: record.clientCapabilities,
      clientInfo: record.clientInfo,
      get: (connectorId) => record.members[connectorId],
      keep: async (connectorId, fresh, replacing) => {
        const kept = (await this.store.keepMember(session.owner, session.id, connectorId, fresh, replacing)) ?? fresh;
        record.members = { ...record.members, [connectorId]: kept };
        this.onMemberSession?.(session);
        return kept;
      },
    };
  }

  /** Ends the session, and its members' sessions upstream; false when there was none. */
  async end(session: FoundSession): Promise<boolean> {
    const ended = await this.store.end(session.owner, session.id);
    if (!ended) return false;
    await Promise.all(Object.entries(ended.members).map(([connectorId, member]) => this.closeMember(connectorId, member)));
    return true;
  }

  /** Removes the sessions that expired (the store's sweep; member sessions upstream expire by themselves). */
  sweep(): Promise<number> {
    return this.store.sweep(this.limits.idleMs);
  }

  private async closeMember(connectorId: string, member: MemberSessionRecord): Promise<void> {
    const route = await this.routes.get(connectorId).catch(() => null);
    if (route?.kind === 'connected') await this.link.close({ connectorId, route }, member);
  }
}
