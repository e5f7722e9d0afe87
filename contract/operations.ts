// Every HTTP operation of the service, declared once. The koa router (api/router.ts), the OpenAPI
// document (api/openapi.ts), README's API table (api/api-table.ts) and the check that a handler
// answers only the statuses its operation lists (api/declared-status.ts) are all derived from here.
//
// To add an operation, add an entry to OPERATIONS (its key is the operationId; the order is the
// koa router's, so a fixed path goes before a `{id}` path it would otherwise fall into):
//   method     'get' | 'post' | 'put' | 'patch' | 'delete'
//   path       OpenAPI form, parameters in braces: '/api/v1/connectors/{id}'; a path another room
//              builds or recognises is a constant of core/ (contract/public-paths.ts), named here
//   summary    one line, for OpenAPI
//   servedBy   'api': the koa app, and then a handler under the same key in a route file (the
//              compiler names a missing one); 'proxy': the MCP proxy; 'server': the HTTP server
//              beside both (/metrics). Only 'api' operations are registered on the router; the
//              HTTP server dispatches the others by their paths (service/http-server.ts), and
//              the chart's Ingress sends the proxy's to the proxy Service (api/ingress-paths.ts).
//   auth       'caller': takes a credential, and may also answer CALLER_ANSWERS; 'open': none asked
//   query      the zod object the handler parses the query with (handlers get it as input.query())
//   body       { schema, required }: the zod schema of the JSON body (input.body()); a body also
//              brings BODY_ANSWERS (unparsable, too large, not JSON)
//   parameters extra header or query parameters in OpenAPI form (path parameters are derived)
//   responses  status → ok(description, schema?) | page(description, contentType) |
//              problem(description, ...problem type slugs; none: the status's own, e.g. 'not-found')
// Then run `npm run docs:api` to write README's table (test/api/api-table.test.ts checks it).
import type { z } from 'zod';
import { AuthRequestSchema, ConnectorEventSchema, ConnectorListSchema, ConnectorSchema, EventListSchema } from './connector-record';
import { TaskListSchema, TaskSummarySchema } from './task-record';
import { ApprovalDecisionSchema, ToolApprovalSchema } from './approvals';
import { CallListSchema, CallSchema } from './call-record';
import { CallerSchema } from './caller-record';
import { FAILURE, FAILURE_HTTP } from './failures';
import { CLIENT_METADATA_PATH, CONSENT_PATH, OAUTH_CALLBACK_PATH } from './oauth-client-metadata';
import { slugFor } from './problem';
import { CONNECTOR_MCP_PATH, PROTECTED_RESOURCE_PREFIX, TOOLSET_MCP_PATH } from './public-paths';
import {
  ApprovePresetSchema, ConnectRequestSchema, CreateConnectorSchema, ListCallsQuerySchema, ListConnectorsQuerySchema, ListEventsQuerySchema,
  PatchConnectorSchema, PresetListSchema, ProblemSchema, PublicPresetSchema,
} from './schemas';
import { CreateToolsetSchema, ListToolsetsQuerySchema, PatchToolsetSchema, ToolsetListSchema, ToolsetSchema } from './toolset-record';

/** Where each process serves Prometheus text (and CONNECTOR__METRICS_PORT, when set). */
export const METRICS_PATH = '/metrics';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Answer {
  description: string;
  /** The JSON body's schema (named in SCHEMAS to appear by reference). */
  schema?: z.ZodType;
  /** A body that is not JSON (text/html, text/plain). */
  contentType?: string;
  /** Problem details: the problem type slugs this status may carry. */
  problemTypes?: readonly string[];
}

export interface Parameter {
  name: string;
  in: 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: Record<string, unknown>;
}

export interface Operation {
  method: Method;
  path: string;
  summary: string;
  servedBy: 'api' | 'proxy' | 'server';
  auth: 'caller' | 'open';
  query?: z.ZodObject;
  body?: { schema: z.ZodType; required: boolean };
  parameters?: readonly Parameter[];
  responses: Readonly<Record<number, Answer>>;
}

export const ok = (description: string, schema?: z.ZodType): Answer => ({ description, ...(schema ? { schema } : {}) });
export const page = (description: string, contentType: string): Answer => ({ description, contentType });
export const problem = (description: string, ...problemTypes: string[]): Answer => ({ description, problemTypes });

/** The schemas OpenAPI names under components (and refers to by name wherever they appear). */
export const SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  Connector: ConnectorSchema, ConnectorList: ConnectorListSchema, CreateConnectorRequest: CreateConnectorSchema,
  ConnectRequest: ConnectRequestSchema, PatchConnectorRequest: PatchConnectorSchema, ConnectorEvent: ConnectorEventSchema, ConnectorEventList: EventListSchema,
  ConnectorCall: CallSchema, ConnectorCallList: CallListSchema, ConnectorTask: TaskSummarySchema, ConnectorTaskList: TaskListSchema,
  ToolApproval: ToolApprovalSchema, ApprovalDecision: ApprovalDecisionSchema,
  Preset: PublicPresetSchema, PresetList: PresetListSchema, Problem: ProblemSchema, AuthRequest: AuthRequestSchema,
  Caller: CallerSchema, Toolset: ToolsetSchema, ToolsetList: ToolsetListSchema, CreateToolsetRequest: CreateToolsetSchema, PatchToolsetRequest: PatchToolsetSchema,
};

/** What any operation taking a credential may answer besides its own. */
export const CALLER_ANSWERS: Readonly<Record<number, Answer>> = {
  401: problem('No or a bad credential (WWW-Authenticate: Bearer)'),
  403: problem('A foreign Origin (DNS-rebinding defence)'),
  429: problem('The owner is past its request rate (CONNECTOR__RATE_LIMIT_PER_OWNER; Retry-After, RateLimit-Policy and RateLimit say when to come back)', 'rate-limited'),
  503: problem('The identity provider, the workflow service or the database cannot be reached; try again'),
};

/** What any operation taking a JSON body may answer besides its own. */
export const BODY_ANSWERS: Readonly<Record<number, Answer>> = {
  400: problem('Unparsable JSON, or a body that does not match its Content-Encoding'),
  413: problem('Body too large'),
  415: problem('Not JSON'),
};

const CONNECTOR_ANSWERS = { 404: problem('Unknown connector, or another owner\'s') };
/** Who may see and decide a held call: its approvers; the connector's owner is refused, anyone else told nothing. */
const APPROVAL_ANSWERS = {
  403: problem('Not named as an approver of this call (the connector\'s owner included)'),
  404: problem('Unknown connector or task, a task no rule held, or another owner\'s that does not name the caller'),
};
const FAILED_CONNECT = (type: keyof typeof FAILURE) => FAILURE_HTTP[FAILURE[type]].slug;
const INVALID_STATE = FAILED_CONNECT('invalidTransition');
const TOOLSET_ANSWERS = { 404: problem('Unknown toolset, or another owner\'s') };
const TOOLSET_INVALID = problem('Invalid body: a member the caller may not see (by its workflow\'s owner), a prefix that is not [a-z0-9_-]{1,32} (without __, not ending in _) or is used twice, a pattern with more than 8 *, or a toolset larger than 64 KiB');
const TOOLSET_MCP_ANSWERS: Readonly<Record<number, Answer>> = {
  200: ok("the toolset's answer (application/json or text/event-stream): tools/list is the union of the connected members' tools named <prefix>__<tool>, filtered by the members' allow/deny and the caller's access; a call to a member that is not connected answers JSON-RPC -32010 with { connector_id, state, disconnect_reason?, authorization_url? } (the reason and the URL for the member's owner and admins only), or -32042 with the authorization URL (URL-mode elicitation, owner and admins only); a member unreachable or too slow -31004 or -31005. Errors of the service to a JSON-RPC request are JSON-RPC errors whose data is the problem (docs/mcp-errors.md)"),
  202: ok('a notification or response accepted'),
  400: problem('Ambiguous framing (JSON-RPC -32600), or Mcp-Method/Mcp-Name headers that disagree with the body (-32020)', 'ambiguous-framing', 'header-mismatch'),
  401: problem('No or a bad credential (JSON-RPC -31001): WWW-Authenticate: Bearer with resource_metadata pointing at the RFC 9728 document of this path'),
  403: problem('A foreign Origin'),
  404: problem("Unknown toolset, another owner's, or an unknown or expired session (JSON-RPC -31002)"),
  405: problem('A method other than POST, GET and DELETE'),
  413: problem('A body over the limit (JSON-RPC -32600)'),
  429: problem('The owner is past its request rate (JSON-RPC -31003), or its concurrent MCP requests or its sessions are at the limit (-31002)', 'rate-limited', 'quota-exceeded'),
  503: problem('The registry, the database or the identity provider cannot be reached; try again (Retry-After; JSON-RPC -31006)', 'service-unavailable'),
};

const MCP_ANSWERS: Readonly<Record<number, Answer>> = {
  200: ok('relayed from the MCP server (application/json or text/event-stream), streamed; or JSON-RPC error -32042 carrying the authorization URL when the MCP server asked for authorization and the client declared URL-mode elicitation, or carrying the approval page when a rule holds the tool for approval and the client did not declare the Tasks extension. Errors of the service to a JSON-RPC request are JSON-RPC errors whose data is the problem (docs/mcp-errors.md)'),
  202: ok('relayed from the MCP server: a notification or response accepted'),
  400: problem('Ambiguous framing, a GET or DELETE with a body (JSON-RPC -32600), Mcp-Method/Mcp-Name headers that disagree with the body (-32020), or, to a legacy SSE server\'s connector, a request without the Mcp-Session-Id of its initialize', 'ambiguous-framing', 'header-mismatch'),
  401: problem('No or a bad credential (JSON-RPC -31001): WWW-Authenticate: Bearer with resource_metadata pointing at the RFC 9728 document of this path'),
  403: problem('A foreign Origin, or the MCP server asks for more scope (JSON-RPC -31007; authorization_url holds the step-up URL)'),
  404: problem('Unknown connector, or another owner\'s (JSON-RPC -31002); for a legacy SSE server\'s connector, a session id the service did not give', 'not-found', 'session-not-found'),
  405: problem('A method other than POST, GET and DELETE'),
  409: problem('Not connected (connector_state says what it is); after the MCP server refused the token for good, `auth_required` with authorization_url to authorize it again; an enterprise-managed one whose identity assertion no longer obtains a token: `auth_required` with `needs: "id_token"` (connect again with a fresh one) (JSON-RPC -32010)', 'not-connected'),
  413: problem('A body carrying Mcp-Method or Mcp-Name over the limit read before relaying (JSON-RPC -32600)'),
  429: problem('The owner is past its request rate (JSON-RPC -31003), or its concurrent MCP requests or this connector\'s are at the limit (-31002)', 'rate-limited', 'quota-exceeded', 'connector-busy'),
  502: problem('The MCP server could not be reached, or refused the connector\'s credentials (JSON-RPC -31004)', 'bad-gateway', 'upstream-refused'),
  503: problem('The registry, the identity provider or the connector\'s credentials are changing; try again (Retry-After; JSON-RPC -31006)', 'service-unavailable', 'credentials-changed'),
  504: problem('The MCP server did not answer in time (JSON-RPC -31005)'),
};

export const OPERATIONS = {
  createConnector: {
    method: 'post', path: '/api/v1/connectors', summary: 'Create a connector', servedBy: 'api', auth: 'caller',
    body: { schema: CreateConnectorSchema, required: true },
    responses: {
      201: ok('record, `Location`', ConnectorSchema),
      422: problem('Invalid body'),
      429: problem('The owner has as many connectors as allowed (CONNECTOR__MAX_CONNECTORS_PER_OWNER), or is past its request rate', 'quota-exceeded', 'rate-limited'),
    },
  },
  listConnectors: {
    method: 'get', path: '/api/v1/connectors', summary: 'List connectors', servedBy: 'api', auth: 'caller',
    query: ListConnectorsQuerySchema,
    responses: { 200: ok('`{items,total_count,total_count_exact,has_more,next_page_token}`', ConnectorListSchema), 422: problem('Bad query') },
  },
  listPresets: {
    method: 'get', path: '/api/v1/connectors/presets', summary: 'List presets', servedBy: 'api', auth: 'caller',
    responses: { 200: ok("`{items}` without credentials or env presets' env values; each with `source` (env or registry), `version`, `runnable`/`reason`, and for registry stdio presets `approved`, what will `run`, its `digest` and, when a sync changed it, `changes`", PresetListSchema) },
  },
  approvePreset: {
    method: 'post', path: '/api/v1/connectors/presets/{name}/approve', servedBy: 'api', auth: 'caller',
    summary: "Approve what a registry stdio preset runs now, its version and run digest (admins): it runs only once approved, until a sync changes either",
    body: { schema: ApprovePresetSchema, required: false },
    responses: {
      200: ok('the preset, approved', PublicPresetSchema),
      403: problem('Not an admin', 'forbidden'), 404: problem('No registry preset has this name'),
      409: problem('A preset that needs no approval or cannot run, or the synced version or run digest is another by now', 'not-approvable', 'version-changed', 'run-changed'),
    },
  },
  getConsentPage: {
    method: 'get', path: CONSENT_PATH, servedBy: 'api', auth: 'open',
    summary: "The consent page an auth_request's authorization_endpoint points to: names the MCP server and the connector's owner, binds the flow to the browser (cookie) and links on to the authorization server",
    parameters: [{ name: 'request', in: 'query', required: true, schema: { type: 'string' } }],
    responses: {
      200: page('the page, with a Set-Cookie the callback needs', 'text/html'),
      400: page('Unknown, expired or used authorization request', 'text/html'),
      503: problem('The database cannot be reached; try again'),
    },
  },
  oauthCallback: {
    method: 'get', path: OAUTH_CALLBACK_PATH, servedBy: 'api', auth: 'open',
    summary: 'Where the authorization server sends the user back (RFC 6749 section 4.1.2)',
    parameters: ['code', 'state', 'iss', 'error', 'error_description'].map((name) => ({ name, in: 'query', schema: { type: 'string' } }) as const),
    responses: {
      200: page('without a redirect_url: a page saying the connector is connected', 'text/html'),
      302: ok("to the connect's redirect_url, with connector_id, and on failure error and error_description"),
      // The status of a failed authorization is the failure table's, whatever failed inside the flow.
      [FAILURE_HTTP[FAILURE.authorizationFailed].status]: page('Without a redirect_url: a page showing the error (unknown, expired or used state; refused or failed authorization)', 'text/html'),
      503: problem('The database cannot be reached; try again'),
    },
  },
  getConnector: {
    method: 'get', path: '/api/v1/connectors/{id}', summary: 'Get a connector', servedBy: 'api', auth: 'caller',
    responses: { 200: ok('record', ConnectorSchema), ...CONNECTOR_ANSWERS },
  },
  patchConnector: {
    method: 'patch', path: '/api/v1/connectors/{id}', servedBy: 'api', auth: 'caller',
    summary: "Change a connector's approval rules (RFC 7396 JSON merge patch, application/merge-patch+json or application/json)",
    body: { schema: PatchConnectorSchema, required: true },
    responses: { 200: ok('record', ConnectorSchema), ...CONNECTOR_ANSWERS, 409: problem('The connector is being deleted', INVALID_STATE), 422: problem('Invalid body') },
  },
  deleteConnector: {
    method: 'delete', path: '/api/v1/connectors/{id}', summary: 'Delete a connector', servedBy: 'api', auth: 'caller',
    responses: { 202: ok('record in `deleting`; it disappears once teardown is done', ConnectorSchema), ...CONNECTOR_ANSWERS },
  },
  connectConnector: {
    method: 'post', path: '/api/v1/connectors/{id}/connect', summary: 'Connect (token, OAuth or managed workload)', servedBy: 'api', auth: 'caller',
    body: { schema: ConnectRequestSchema, required: false },
    parameters: [{ name: 'Prefer', in: 'header', schema: { type: 'string', example: 'respond-async' } }],
    responses: {
      200: ok('`connected` or `auth_required`', ConnectorSchema),
      202: ok('with `Prefer: respond-async`: `connecting`', ConnectorSchema),
      ...CONNECTOR_ANSWERS,
      403: problem("grant workload_identity from a caller who is not an admin, for a connector whose preset does not ask for it", 'forbidden'),
      409: problem('Wrong state, or a disconnect or delete overtook the connect', INVALID_STATE, FAILED_CONNECT('cancelled')),
      422: problem(
        'Invalid body, a plain-http URL a token may not be sent to, a server that needs a token and offers no OAuth (token-required), or a server or preset the service cannot connect (no client identity, no PKCE, no runtime for the preset)',
        slugFor(422), 'token-over-plain-http', FAILED_CONNECT('tokenRequired'), FAILED_CONNECT('unprocessable'),
      ),
      502: problem('The MCP server or its authorization server answered with an error, or could not be reached', FAILED_CONNECT('upstreamError')),
      504: problem('The MCP server or the stdio workload did not answer in time', FAILED_CONNECT('upstreamTimeout')),
    },
  },
  disconnectConnector: {
    method: 'post', path: '/api/v1/connectors/{id}/disconnect', summary: 'Disconnect', servedBy: 'api', auth: 'caller',
    responses: { 200: ok('`disconnected`', ConnectorSchema), ...CONNECTOR_ANSWERS, 409: problem('Wrong state', INVALID_STATE) },
  },
  listConnectorEvents: {
    method: 'get', path: '/api/v1/connectors/{id}/events', summary: 'Audit trail of the connector', servedBy: 'api', auth: 'caller',
    query: ListEventsQuerySchema,
    responses: {
      200: ok('transitions, oldest first (time, actor, from, to, reason; `protocol_version` on a transition to `connected`, `auth_kind` on one a connect made)', EventListSchema),
      ...CONNECTOR_ANSWERS, 422: problem('Bad query'),
    },
  },
  listConnectorCalls: {
    method: 'get', path: '/api/v1/connectors/{id}/calls', servedBy: 'api', auth: 'caller',
    summary: "Per-call audit of the connector's MCP traffic (never arguments or results)",
    query: ListCallsQuerySchema,
    responses: { 200: ok('`{items,has_more,next_page_token}`: MCP calls, newest first', CallListSchema), ...CONNECTOR_ANSWERS, 422: problem('Bad query') },
  },
  listConnectorTasks: {
    method: 'get', path: '/api/v1/connectors/{id}/tasks', servedBy: 'api', auth: 'caller',
    summary: "Tasks the service runs for the connector's callers (MCP Tasks; never arguments or results)",
    query: ListEventsQuerySchema,
    responses: { 200: ok('`{items,has_more,next_page_token}`: tasks within their TTL, newest first', TaskListSchema), ...CONNECTOR_ANSWERS, 422: problem('Bad query') },
  },
  getToolApproval: {
    method: 'get', path: '/api/v1/connectors/{id}/tasks/{taskId}/approval', servedBy: 'api', auth: 'caller',
    summary: 'A call held for approval (CONNECTOR__APPROVAL_TOOLS), for its approvers: the tool, its arguments, who asks, where it stands',
    responses: {
      200: ok('the approval', ToolApprovalSchema),
      ...APPROVAL_ANSWERS,
    },
  },
  decideToolApproval: {
    method: 'post', path: '/api/v1/connectors/{id}/tasks/{taskId}/approval', servedBy: 'api', auth: 'caller',
    summary: 'Approve or deny a call held for approval: the call then runs, or ends failed; who decided is kept with the task',
    body: { schema: ApprovalDecisionSchema, required: true },
    responses: {
      200: ok('the approval as decided', ToolApprovalSchema),
      ...APPROVAL_ANSWERS,
      409: problem('Decided already, expired, or cancelled'),
      422: problem('Invalid body'),
    },
  },
  postMcp: {
    method: 'post', path: CONNECTOR_MCP_PATH, summary: 'MCP request (JSON-RPC), relayed and streamed', servedBy: 'proxy', auth: 'caller',
    responses: MCP_ANSWERS,
  },
  getMcp: {
    method: 'get', path: CONNECTOR_MCP_PATH, summary: 'MCP server-to-client SSE stream', servedBy: 'proxy', auth: 'caller',
    responses: MCP_ANSWERS,
  },
  deleteMcp: {
    method: 'delete', path: CONNECTOR_MCP_PATH, summary: 'End the MCP session', servedBy: 'proxy', auth: 'caller',
    responses: MCP_ANSWERS,
  },
  getClientMetadata: {
    method: 'get', path: CLIENT_METADATA_PATH, servedBy: 'api', auth: 'open',
    summary: "The service's OAuth client metadata document: its client_id where authorization servers support them",
    responses: { 200: ok('the document (served under an https BASE_URL only)'), 404: problem('Not served: BASE_URL is not https') },
  },
  getProtectedResourceMetadata: {
    method: 'get', path: `${PROTECTED_RESOURCE_PREFIX}${CONNECTOR_MCP_PATH}`, servedBy: 'api', auth: 'open',
    summary: "RFC 9728 protected-resource metadata of a connector's MCP path: where an MCP client signs its user in",
    responses: { 200: ok('resource (the mcp_url) and authorization_servers (CONNECTOR__AUTH_ISSUER)'), 404: problem('No identity provider is configured') },
  },
  createToolset: {
    method: 'post', path: '/api/v1/toolsets', summary: 'Create a toolset: the tools of several connectors as one MCP server', servedBy: 'api', auth: 'caller',
    body: { schema: CreateToolsetSchema, required: true },
    responses: {
      201: ok('record, `Location`', ToolsetSchema), 422: TOOLSET_INVALID,
      429: problem('The owner has as many toolsets as allowed (CONNECTOR__MAX_TOOLSETS_PER_OWNER), or is past its request rate', 'quota-exceeded', 'rate-limited'),
    },
  },
  listToolsets: {
    method: 'get', path: '/api/v1/toolsets', summary: 'List toolsets', servedBy: 'api', auth: 'caller',
    query: ListToolsetsQuerySchema,
    responses: { 200: ok('`{items,total_count,next_page_token}`', ToolsetListSchema), 422: problem('Bad query') },
  },
  getToolset: {
    method: 'get', path: '/api/v1/toolsets/{id}', summary: 'Get a toolset', servedBy: 'api', auth: 'caller',
    responses: { 200: ok('record', ToolsetSchema), ...TOOLSET_ANSWERS },
  },
  patchToolset: {
    method: 'patch', path: '/api/v1/toolsets/{id}', servedBy: 'api', auth: 'caller',
    summary: 'Change a toolset (RFC 7396 JSON merge patch, application/merge-patch+json or application/json; members and access are replaced whole)',
    body: { schema: PatchToolsetSchema, required: true },
    responses: { 200: ok('record', ToolsetSchema), ...TOOLSET_ANSWERS, 422: TOOLSET_INVALID },
  },
  deleteToolset: {
    method: 'delete', path: '/api/v1/toolsets/{id}', summary: 'Delete a toolset (its connectors are untouched)', servedBy: 'api', auth: 'caller',
    responses: { 204: ok('deleted'), ...TOOLSET_ANSWERS },
  },
  listToolsetCalls: {
    method: 'get', path: '/api/v1/toolsets/{id}/calls', servedBy: 'api', auth: 'caller',
    summary: "Per-call audit of the toolset's MCP traffic (each call names its member)",
    query: ListCallsQuerySchema,
    responses: { 200: ok('`{items,has_more,next_page_token}`: MCP calls, newest first', CallListSchema), ...TOOLSET_ANSWERS, 422: problem('Bad query') },
  },
  listToolsetTasks: {
    method: 'get', path: '/api/v1/toolsets/{id}/tasks', servedBy: 'api', auth: 'caller',
    summary: "Tasks the service runs for calls made through the toolset (MCP Tasks; never arguments or results)",
    query: ListEventsQuerySchema,
    responses: { 200: ok('`{items,has_more,next_page_token}`: tasks within their TTL, newest first', TaskListSchema), ...TOOLSET_ANSWERS, 422: problem('Bad query') },
  },
  postToolsetMcp: {
    method: 'post', path: TOOLSET_MCP_PATH, summary: 'MCP request to the toolset (2025-11-25 with a session of its own, 2026-07-28 without)', servedBy: 'proxy', auth: 'caller',
    responses: TOOLSET_MCP_ANSWERS,
  },
  getToolsetMcp: {
    method: 'get', path: TOOLSET_MCP_PATH, summary: 'MCP server-to-client SSE stream of the toolset', servedBy: 'proxy', auth: 'caller',
    responses: TOOLSET_MCP_ANSWERS,
  },
  deleteToolsetMcp: {
    method: 'delete', path: TOOLSET_MCP_PATH, summary: 'End the toolset MCP session and its upstream sessions', servedBy: 'proxy', auth: 'caller',
    responses: TOOLSET_MCP_ANSWERS,
  },
  getToolsetProtectedResourceMetadata: {
    method: 'get', path: `${PROTECTED_RESOURCE_PREFIX}${TOOLSET_MCP_PATH}`, servedBy: 'api', auth: 'open',
    summary: "RFC 9728 protected-resource metadata of a toolset's MCP path",
    responses: { 200: ok("resource (the toolset's mcp_url) and authorization_servers (CONNECTOR__AUTH_ISSUER)"), 404: problem('No identity provider is configured') },
  },
  getCaller: {
    method: 'get', path: '/api/v1/caller', summary: 'Who the credential of this request is (subject, name, whether an admin)', servedBy: 'api', auth: 'caller',
    responses: { 200: ok('the caller', CallerSchema) },
  },
  getConsole: {
    method: 'get', path: '/', summary: 'The web console (HTML; signed out: what the service is, links to the API reference and the health checks)', servedBy: 'api', auth: 'open',
    responses: { 200: page('the page', 'text/html'), 304: ok('not modified (ETag)'), 404: problem('The console is not built (npm run build)') },
  },
  getReference: {
    method: 'get', path: '/reference', summary: 'This document, rendered for people (Swagger UI)', servedBy: 'api', auth: 'open',
    responses: { 200: page('the page', 'text/html'), 304: ok('not modified (ETag)'), 404: problem('The console is not built (npm run build)') },
  },
  getConsoleConfig: {
    method: 'get', path: '/console/config.json', servedBy: 'api', auth: 'open',
    summary: "The console's sign-in settings: the identity provider (CONNECTOR__AUTH_ISSUER), the console's client id (CONNECTOR__CONSOLE_CLIENT_ID), the resource and scope it asks for; nulls when it signs in with API keys only",
    responses: { 200: ok('the settings') },
  },
  getConsoleFile: {
    method: 'get', path: '/console/{file}', summary: "The console's scripts and stylesheets", servedBy: 'api', auth: 'open',
    responses: { 200: ok('the file'), 304: ok('not modified (ETag)'), 404: problem('No such file') },
  },
  getOpenApi: {
    method: 'get', path: '/api/v1/openapi.json', summary: 'This document', servedBy: 'api', auth: 'open',
    responses: { 200: ok('OpenAPI 3.1') },
  },
  getHealth: {
    method: 'get', path: '/healthz', summary: 'Liveness', servedBy: 'api', auth: 'open',
    responses: { 200: ok('alive') },
  },
  getReadiness: {
    method: 'get', path: '/readyz', summary: 'Readiness', servedBy: 'api', auth: 'open',
    responses: { 200: ok('Temporal and the database answer'), 503: problem('A dependency is down (checks says which)') },
  },
  getMetrics: {
    method: 'get', path: METRICS_PATH, servedBy: 'server', auth: 'caller',
    summary: 'Prometheus metrics of this process (text format). Open on CONNECTOR__METRICS_PORT when that is set, and then not served here',
    responses: {
      200: page('Prometheus text', 'text/plain'),
      401: problem('No or a bad credential (WWW-Authenticate: Bearer), while callers are authenticated'),
      403: problem('Not an admin credential, or a foreign Origin'),
      503: problem('The identity provider cannot be reached'),
    },
  },
} as const satisfies Record<string, Operation>;

export type Operations = typeof OPERATIONS;
export type OperationId = keyof Operations;

/** Everything `operation` may answer: its own answers, and those its credential and body bring. */
export function answersOf(operation: Operation): Readonly<Record<number, Answer>> {
  return {
    ...(operation.auth === 'caller' && operation.servedBy === 'api' ? CALLER_ANSWERS : {}),
    ...(operation.body ? BODY_ANSWERS : {}),
    ...operation.responses,
  };
}

/** The problem type slugs `answer` may carry for `status`. */
export function problemTypesOf(status: number, answer: Answer): readonly string[] {
  return answer.problemTypes?.length ? answer.problemTypes : [slugFor(status)];
}

/** The declared operations in order, with their ids. */
export function operations(): Array<[OperationId, Operation]> {
  return Object.entries(OPERATIONS) as Array<[OperationId, Operation]>;
}
