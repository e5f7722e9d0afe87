// The OpenAPI 3.1 document, generated from the same zod schemas the API validates with.
import { ConnectorEventSchema, ConnectorListSchema, ConnectorSchema, EventListSchema, AuthRequestSchema } from '../core/connector-record';
import { z } from 'zod';
import { CLIENT_METADATA_PATH, CONSENT_PATH, OAUTH_CALLBACK_PATH } from '../core/oauth-client-metadata';
import { CallListSchema, CallSchema } from '../core/call-record';
import { ConnectRequestSchema, CreateConnectorSchema, ListCallsQuerySchema, ListConnectorsQuerySchema, ListEventsQuerySchema, PresetListSchema, ProblemSchema, PublicPresetSchema } from '../core/schemas';
import { PROTECTED_RESOURCE_PREFIX } from './routes/protected-resource';
import { METRICS_PATH } from '../core/metrics';
import { CallerSchema } from '../core/caller-record';
import { CONSOLE_CONFIG_PATH, REFERENCE_PATH } from './routes/console';
import { CALLER_PATH } from './routes/caller';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ref('Problem') } } });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

/** Query parameters from the schema the route validates with. */
function queryParameters(schema: z.ZodObject) {
  type Properties = { properties: Record<string, Record<string, unknown>> };
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Partial<Properties> & { $defs?: Record<string, Properties> };
  // A schema with an id comes back as a $ref into $defs.
  const properties = json.properties ?? Object.values(json.$defs ?? {})[0]?.properties ?? {};
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: 'query', ...(description ? { description } : {}), schema: rest };
  });
}

/** Answers every authenticated operation may give besides its own. */
const CALLER_ANSWERS = {
  401: problem('No or a bad credential (WWW-Authenticate: Bearer)'),
  403: problem('A foreign Origin'),
  429: problem('The owner is past its request rate (CONNECTOR__RATE_LIMIT_PER_OWNER; Retry-After, RateLimit-Policy and RateLimit say when to come back)'),
};

function components() {
  const named = {
    Connector: ConnectorSchema, ConnectorList: ConnectorListSchema, CreateConnectorRequest: CreateConnectorSchema,
    ConnectRequest: ConnectRequestSchema, ConnectorEvent: ConnectorEventSchema, ConnectorEventList: EventListSchema,
    ConnectorCall: CallSchema, ConnectorCallList: CallListSchema,
    Preset: PublicPresetSchema, PresetList: PresetListSchema, Problem: ProblemSchema, AuthRequest: AuthRequestSchema,
    Caller: CallerSchema,
  };
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema as z.ZodType, { id });
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', io: 'input', uri: (id) => `#/components/schemas/${id}`, unrepresentable: 'any' });
  return Object.fromEntries(Object.entries(schemas).map(([k, v]) => [k, stripSchemaKeyword(v)]));
}

function stripSchemaKeyword(schema: object): object {
  const { $schema, ...rest } = schema as Record<string, unknown>;
  return rest;
}

export function openApiDocument(baseUrl: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'Connector registry', version: '1.0.0', description: 'Registers MCP servers as connectors, connects them and proxies MCP traffic to them.' },
    servers: [{ url: baseUrl }],
    paths: {
      '/api/v1/connectors': {
        post: {
          summary: 'Create a connector', requestBody: { required: true, content: json(ref('CreateConnectorRequest')) },
          responses: { 201: { description: 'Created', content: json(ref('Connector')) }, 400: problem('Unparsable JSON'), 413: problem('Body too large'), 415: problem('Not JSON'), 422: problem('Invalid body'), 429: problem('The owner has as many connectors as allowed, or is past its request rate') },
        },
        get: {
          summary: 'List connectors',
          parameters: queryParameters(ListConnectorsQuerySchema),
          responses: { 200: { description: 'A page of connectors', content: json(ref('ConnectorList')) }, 422: problem('Bad query') },
        },
      },
      '/api/v1/connectors/presets': {
        get: { summary: 'List presets', responses: { 200: { description: 'Presets, without credentials or env values', content: json(ref('PresetList')) } } },
      },
      '/api/v1/connectors/{id}': {
        parameters: [idParam],
        get: { summary: 'Get a connector', responses: { 200: { description: 'The connector', content: json(ref('Connector')) }, 404: problem('Not found') } },
        delete: { summary: 'Delete a connector', responses: { 202: { description: 'Deleting; the record disappears once teardown is done', content: json(ref('Connector')) }, 404: problem('Not found') } },
      },
      '/api/v1/connectors/{id}/connect': {
        parameters: [idParam, { name: 'Prefer', in: 'header', schema: { type: 'string', example: 'respond-async' } }],
        post: {
          summary: 'Connect (token, OAuth or managed workload)', requestBody: { required: false, content: json(ref('ConnectRequest')) },
          responses: {
            200: { description: 'connected or auth_required', content: json(ref('Connector')) },
            202: { description: 'With Prefer: respond-async: connecting', content: json(ref('Connector')) },
            404: problem('Not found'), 409: problem('Wrong state'), 422: problem('Invalid body, or a plain-http URL a token may not be sent to (type token-over-plain-http)'),
            502: problem('The MCP server answered with an error'), 504: problem('The MCP server did not answer in time'),
          },
        },
      },
      '/api/v1/connectors/{id}/disconnect': {
        parameters: [idParam],
        post: { summary: 'Disconnect', responses: { 200: { description: 'disconnected', content: json(ref('Connector')) }, 404: problem('Not found'), 409: problem('Wrong state') } },
      },
      '/api/v1/connectors/{id}/events': {
        parameters: [idParam],
        get: { summary: 'Audit trail of the connector', parameters: queryParameters(ListEventsQuerySchema), responses: { 200: { description: 'Transitions, oldest first', content: json(ref('ConnectorEventList')) }, 404: problem('Not found') } },
      },
      '/api/v1/connectors/{id}/calls': {
        parameters: [idParam],
        get: {
          summary: "Per-call audit of the connector's MCP traffic (never arguments or results)",
          parameters: queryParameters(ListCallsQuerySchema),
          responses: { 200: { description: 'MCP calls, newest first', content: json(ref('ConnectorCallList')) }, 404: problem('Not found'), 422: problem('Bad query') },
        },
      },
      '/api/v1/connectors/{id}/mcp': {
        parameters: [idParam],
        post: mcpOperation('MCP request (JSON-RPC), relayed and streamed'),
        get: mcpOperation('MCP server-to-client SSE stream'),
        delete: mcpOperation('End the MCP session'),
      },
      [CONSENT_PATH]: {
        get: {
          summary: "The consent page an auth_request's authorization_endpoint points to: names the MCP server and the connector's owner, binds the flow to the browser (cookie) and links on to the authorization server",
          security: [],
          parameters: [{ name: 'request', in: 'query', required: true, schema: { type: 'string' } }],
          responses: {
            200: { description: 'The page, with a Set-Cookie the callback needs', content: { 'text/html': {} } },
            400: { description: 'Unknown, expired or used authorization request', content: { 'text/html': {} } },
          },
        },
      },
      [OAUTH_CALLBACK_PATH]: {
        get: {
          summary: 'Where the authorization server sends the user back (RFC 6749 section 4.1.2)',
          security: [],
          parameters: ['code', 'state', 'iss', 'error', 'error_description'].map((name) => ({ name, in: 'query', schema: { type: 'string' } })),
          responses: {
            302: { description: "To the connect's redirect_url, with connector_id, and on failure error and error_description" },
            200: { description: 'Without a redirect_url: a page saying the connector is connected', content: { 'text/html': {} } },
            400: { description: 'Without a redirect_url: a page showing the error (unknown, expired or used state; refused or failed authorization)', content: { 'text/html': {} } },
          },
        },
      },
      [CLIENT_METADATA_PATH]: {
        get: {
          summary: "The service's OAuth client metadata document: its client_id where authorization servers support them",
          security: [],
          responses: { 200: { description: 'The document (served under an https BASE_URL only)' }, 404: problem('Not served: BASE_URL is not https') },
        },
      },
      [`${PROTECTED_RESOURCE_PREFIX}/api/v1/connectors/{id}/mcp`]: {
        parameters: [idParam],
        get: {
          summary: "RFC 9728 protected-resource metadata of a connector's MCP path: where an MCP client signs its user in",
          security: [],
          responses: { 200: { description: 'resource (the mcp_url) and authorization_servers (CONNECTOR__AUTH_ISSUER)' }, 404: problem('No identity provider is configured') },
        },
      },
      [CALLER_PATH]: {
        get: { summary: 'Who the credential of this request is (subject, name, whether an admin)', responses: { 200: { description: 'The caller', content: json(ref('Caller')) }, ...CALLER_ANSWERS } },
      },
      '/': { get: { summary: 'The web console (HTML; signed out: what the service is, links to this reference and the health checks)', security: [], responses: { 200: { description: 'The page', content: { 'text/html': {} } }, 404: problem('The console is not built (npm run build)') } } },
      [REFERENCE_PATH]: { get: { summary: 'This document, rendered for people (Swagger UI)', security: [], responses: { 200: { description: 'The page', content: { 'text/html': {} } }, 404: problem('The console is not built (npm run build)') } } },
      '/console/{file}': {
        get: {
          summary: "The console's scripts and stylesheets", security: [],
          parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: 'The file' }, 304: { description: 'Not modified (ETag)' }, 404: problem('No such file') },
        },
      },
      [CONSOLE_CONFIG_PATH]: {
        get: {
          summary: "The console's sign-in settings: the identity provider (CONNECTOR__AUTH_ISSUER), the console's client id (CONNECTOR__CONSOLE_CLIENT_ID), the resource and scope it asks for; nulls when it signs in with API keys only",
          security: [], responses: { 200: { description: 'The settings' } },
        },
      },
      '/api/v1/openapi.json': { get: { summary: 'This document', security: [], responses: { 200: { description: 'OpenAPI 3.1' } } } },
      '/healthz': { get: { summary: 'Liveness', security: [], responses: { 200: { description: 'Alive' } } } },
      '/readyz': { get: { summary: 'Readiness', security: [], responses: { 200: { description: 'Temporal and the database answer' }, 503: problem('A dependency is down') } } },
      [METRICS_PATH]: {
        get: {
          summary: 'Prometheus metrics of this process (text format). Open on METRICS_PORT when that is set, and then not served here',
          responses: { 200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } }, 401: problem('No or a bad credential (WWW-Authenticate: Bearer), while callers are authenticated'), 403: problem('Not an admin credential'), 503: problem('The identity provider cannot be reached') },
        },
      },
    },
    // A caller's API key or access token (README, "Callers and security"); off on a loopback default.
    security: [{ bearer: [] }],
    components: { schemas: components(), securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  };
}

function mcpOperation(summary: string) {
  return {
    summary,
    responses: {
      200: { description: 'Relayed from the MCP server (application/json or text/event-stream)' },
      ...CALLER_ANSWERS, 429: problem("The owner is past its request rate, or its concurrent MCP requests are at the limit"),
      404: problem('Unknown connector, or another owner\'s'), 409: problem('Not connected (connector_state says what it is), also after the MCP server asked for authorization'), 502: problem('Upstream unreachable'), 504: problem('Upstream timed out'),
    },
  };
}
