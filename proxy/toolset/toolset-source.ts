// What the toolset endpoint reads besides routes: the toolset itself and, for a member that is
// not connected, what its record says (why, and where to authorize it). The stack wires these to
// the database; the proxy room does not import the store.
import type { ToolsetRecord } from '../../contract/toolset-record';
import type { SessionStore } from './session-store';

export interface MemberStatus {
  state: string;
  disconnect_reason: string | null;
  /** The connector's pending authorization (auth_required): the page to open. */
  authorization_url: string | null;
}

export interface ToolsetSource {
  toolset(id: string): Promise<ToolsetRecord | null>;
  memberStatus(connectorId: string): Promise<MemberStatus | null>;
  /** Where 2025-11-25 sessions are kept (absent: in this process's memory, for one replica only). */
  sessions?: SessionStore;
  /** Where their answers to members' questions meet the calls that asked (absent: in this process's memory). */
  answers?: InputAnswerStore & { sweep?(): Promise<number> };
}

/** Where clients' answers wait for the replica that asked (store/input-answer-store.ts; in memory for one replica). */
export interface InputAnswerStore {
  put(session: string, requestId: string, sealed: string): Promise<void>;
  /** The answers present among `requestIds`, removed as they are taken. */
  take(session: string, requestIds: readonly string[]): Promise<Map<string, string>>;
}
