// What the toolset router works with: the parts shared by every request of the process, and one
// request's own (its toolset as it is now, the caller and its grant, the client's revision and
// capabilities, where the caller's member sessions are kept).
import type { IncomingHttpHeaders } from 'node:http';
import type { Caller } from '../../callers/caller';
import type { Logger } from '../../platform/logger';
import type { ToolsetRecord } from '../../contract/toolset-record';
import type { ApprovalRule } from '../../contract/approvals';
import type { RouteSource } from '../route';
import type { Grant } from './access';
import type { MemberLink, MemberSessions } from './member-link';
import type { ToolCatalog } from './tool-catalog';
import type { InputAnswerStore, ToolsetSource } from './toolset-source';
import type { SecretBox } from '../../platform/secret-box';
import type { GatewayTasks } from '../tasks/gateway-tasks';

/** What a toolset needs to give its members' calls as tasks (toolset-tasks.ts). */
export interface ToolsetTaskDeps {
  gateway: GatewayTasks;
  /** Seals the member's task id into the id the caller gets. */
  secrets: SecretBox;
}

/** input-bridge.ts: a 2026 member's input requests asked of a 2025 client. */
export interface InputBridgeDeps {
  answers: InputAnswerStore;
  /** Seals the answers while they wait in the store. */
  secrets: SecretBox;
  /** How long a client is waited for (default 10 minutes). */
  waitMs?: number;
  /** How often the store is read while waiting (default 250 ms). */
  pollMs?: number;
}

export type { InputAnswerStore };

export interface ToolsetDeps {
  routes: RouteSource;
  source: ToolsetSource;
  link: MemberLink;
  catalog: ToolCatalog;
  logger: Logger;
  /** Tools per tools/list page. */
  pageSize: number;
  /** Where members' tasks are run or found (absent: the toolset offers no tasks). */
  tasks?: ToolsetTaskDeps;
  /** Where a 2025 client's answers to a 2026 member's questions meet the call (absent: such members are not let ask). */
  inputBridge?: InputBridgeDeps;
  /** The operator's approval rules, by the member's own names: a call they hold is never relayed unapproved (toolset-approvals.ts). */
  approvals: readonly ApprovalRule[];
}

export interface ToolsetContext {
  deps: ToolsetDeps;
  toolset: ToolsetRecord;
  caller: Caller;
  grant: Grant;
  /** 'legacy': a request in a 2025-11-25 session; 'modern': a 2026-07-28 request. */
  era: 'legacy' | 'modern';
  /** What the client declared: in its session's initialize, or in this request's envelope. */
  clientCapabilities: Record<string, unknown>;
  sessions: MemberSessions;
  /** The caller's Mcp-Param-* headers, which mirror the arguments a member gets. */
  paramHeaders: IncomingHttpHeaders;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
  /** A 2025 session's key for its answers (input-bridge.ts); absent at 2026-07-28. */
  answerSession?: string;
}

/** The toolset's own name as an MCP server. */
export const serverInfoOf = (toolset: ToolsetRecord) => ({ name: `toolset ${toolset.name}`, version: '1.0.0' });

export const TOOLSET_CAPABILITIES = Object.freeze({ tools: { listChanged: true }, prompts: {}, resources: {} });

/** The client declared URL-mode elicitation. */
export function declaresUrlElicitation(ctx: ToolsetContext): boolean {
  const elicitation = ctx.clientCapabilities.elicitation;
  return typeof elicitation === 'object' && elicitation !== null && typeof (elicitation as { url?: unknown }).url === 'object';
}
