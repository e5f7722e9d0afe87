// What a toolset's MCP server works with for one request (2026-07-28) or one session (2025-11-25).
import type { Logger } from '../../platform/logger';
import type { ToolsetRecord } from '../../contract/toolset-record';
import type { RouteSource } from '../route';
import type { Grant } from './access';
import type { MemberClients } from './member-clients';
import type { ToolCatalog } from './tool-catalog';
import type { ToolsetSource } from './toolset-source';

export interface ToolsetContext {
  toolset: ToolsetRecord;
  grant: Grant;
  clients: MemberClients;
  catalog: ToolCatalog;
  routes: RouteSource;
  source: ToolsetSource;
  logger: Logger;
  pageSize: number;
}
