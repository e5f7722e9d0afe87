// The shapes the REST API answers and takes, by the names the views use: every record shape is
// generated from the OpenAPI document (api-types.ts, `npm run console:types`), never copied here.
import type { components } from './api-types';

type Schemas = components['schemas'];

export type Connector = Schemas['Connector'];
export type ConnectorState = Connector['state'];
export type Preset = Schemas['Preset'];
export type PresetRun = NonNullable<Preset['run']>;
export type ConnectorEvent = Schemas['ConnectorEvent'];
export type Call = Schemas['ConnectorCall'];
export type ConnectorTask = Schemas['ConnectorTask'];
export type ToolApproval = Schemas['ToolApproval'];
export type CallerView = Schemas['Caller'];
export type Toolset = Schemas['Toolset'];
export type ToolsetMember = Toolset['members'][number];
export type ToolsetAccessRule = Schemas['ToolsetAccessRule'];
export type CreateToolsetRequest = Schemas['CreateToolsetRequest'];
export type PatchToolsetRequest = Schemas['PatchToolsetRequest'];
export type Problem = Schemas['Problem'];

/** Any of the API's paged lists. */
export interface Page<T> {
  items: T[];
  has_more?: boolean;
  next_page_token?: string | null;
  total_count?: number;
}

/**
 * GET /console/config.json (api/routes/console.ts), the console's own settings rather than a
 * record of the API: the sign-in at the identity provider, and whether callers are authenticated.
 */
export interface ConsoleSettings {
  issuer: string | null;
  client_id: string | null;
  resource: string | null;
  scope: string | null;
  callers_authenticated: boolean;
}
