// Where 2025-11-25 toolset sessions are kept, as the toolset endpoint sees it: the stack wires
// store/toolset-session-store.ts (MongoDB) here; the proxy room does not import the store.
import type { MemberSessionRecord, ToolsetSessionRecord } from '../../contract/toolset-record';

export interface SessionStore {
  open(owner: string, session: Omit<ToolsetSessionRecord, 'members' | 'usedAt'>, limit: number, idleMs: number): Promise<string | null>;
  get(owner: string, sessionId: string, idleMs: number): Promise<ToolsetSessionRecord | null>;
  many(sessions: readonly { owner: string; sessionId: string }[], idleMs: number): Promise<Map<string, ToolsetSessionRecord>>;
  touch(owner: string, sessionId: string): Promise<void>;
  keepMember(owner: string, sessionId: string, connectorId: string, fresh: MemberSessionRecord, replacing: MemberSessionRecord | undefined): Promise<MemberSessionRecord | null>;
  end(owner: string, sessionId: string): Promise<ToolsetSessionRecord | null>;
  sweep(idleMs: number): Promise<number>;
}
