// 2025-11-25 toolset sessions in this process's memory: for a proxy without a database (tests, a
// single replica). The same contract as the database's store (session-store.ts): a session is its
// owner's, capped per owner, and gone once idle for longer than the idle timeout.
import { randomBytes } from 'node:crypto';
import type { MemberSessionRecord, ToolsetSessionRecord } from '../../contract/toolset-record';
import type { SessionStore } from './session-store';

export function memorySessionStore(now: () => number = Date.now): SessionStore {
  const sessions = new Map<string, ToolsetSessionRecord>();
  const keyOf = (owner: string, sessionId: string) => `${owner}\n${sessionId}`;
  const live = (key: string, idleMs: number) => {
    const record = sessions.get(key);
    if (record && record.usedAt < now() - idleMs) sessions.delete(key);
    return sessions.get(key) ?? null;
  };
  return {
    async open(owner, session, limit, idleMs) {
      const prefix = `${owner}\n`;
      const held = [...sessions.keys()].filter((key) => key.startsWith(prefix) && live(key, idleMs));
      if (held.length >= limit) return null;
      const id = `${String(held.length).padStart(7, '0')}.${randomBytes(24).toString('base64url')}`;
      sessions.set(keyOf(owner, id), { ...session, members: {}, usedAt: now() });
      return id;
    },
    get: async (owner, sessionId, idleMs) => live(keyOf(owner, sessionId), idleMs),
    async many(list, idleMs) {
      const found = new Map<string, ToolsetSessionRecord>();
      for (const { owner, sessionId } of list) {
        const record = live(keyOf(owner, sessionId), idleMs);
        if (record) found.set(sessionId, record);
      }
      return found;
    },
    async touch(owner, sessionId) {
      const record = sessions.get(keyOf(owner, sessionId));
      if (record) record.usedAt = now();
    },
    async keepMember(owner, sessionId, connectorId, fresh: MemberSessionRecord, replacing) {
      const record = sessions.get(keyOf(owner, sessionId));
      if (!record) return null;
      const current = record.members[connectorId];
      if (current && current.sessionId !== replacing?.sessionId) return current;
      const kept = { ...fresh, generation: (replacing?.generation ?? -1) + 1 };
      record.members = { ...record.members, [connectorId]: kept };
      return kept;
    },
    async end(owner, sessionId) {
      const record = sessions.get(keyOf(owner, sessionId)) ?? null;
      sessions.delete(keyOf(owner, sessionId));
      return record;
    },
    async sweep(idleMs) {
      const before = sessions.size;
      for (const key of [...sessions.keys()]) live(key, idleMs);
      return before - sessions.size;
    },
  };
}
