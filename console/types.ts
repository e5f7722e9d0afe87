// The shapes the REST API answers (api/openapi.ts describes them); only the fields the console reads.

export interface Connector {
  id: string;
  url: string;
  state: string;
  metadata: Record<string, string>;
  auth_request: { type: 'code'; authorization_endpoint: string; expires_at: string } | null;
  disconnect_reason: string | null;
  disconnect_permanent: boolean | null;
  preset: { url: string } | null;
  mcp_url: string;
  created_at: string;
  updated_at: string;
  created_by: string | null;
  created_by_name: string | null;
  protocol_version: string | null;
}

export interface Page<T> {
  items: T[];
  has_more?: boolean;
  next_page_token?: string | null;
  total_count?: number;
}

export interface Preset {
  url: string;
  metadata: Record<string, string>;
  stdio?: { image: string };
  runnable: boolean;
  reason?: string;
  /** `env` (CONNECTOR__PRESETS) or `registry` (synced from an MCP registry). */
  source?: 'env' | 'registry';
  /** A registry preset's server name and version; null for env presets. */
  name?: string;
  version?: string | null;
  /** Registry stdio presets only: whether an admin approved this version and what it runs. */
  approved?: boolean;
  deprecated?: boolean;
  /** Registry stdio presets: what will run, its digest (what an approval pins), and what changed since the last approval. */
  run?: PresetRun;
  digest?: string;
  changes?: string[];
}

/** The API's PresetRun (GET /api/v1/connectors/presets): a secret's value reads `(secret)`. */
export type PresetRun = { registry_type: string; identifier: string; version: string | null; registry_base_url: string | null }
  & { command: string[] | null; args: string[]; env: Record<string, string> };

export interface ConnectorEvent {
  seq: number;
  time: string;
  actor: string;
  from: string | null;
  to: string;
  reason: string | null;
  protocol_version?: string;
}

export interface Call {
  id: string;
  time: string;
  caller: string | null;
  session_id: string | null;
  http_method: string;
  rpc_method: string | null;
  rpc_name: string | null;
  status: number | null;
  rpc_error_code: number | null;
  duration_ms: number;
  request_bytes: number;
  response_bytes: number;
}

export interface CallerView {
  subject: string | null;
  name: string | null;
  admin: boolean;
  authenticated: boolean;
}

export interface ConsoleSettings {
  issuer: string | null;
  client_id: string | null;
  resource: string | null;
  scope: string | null;
}
