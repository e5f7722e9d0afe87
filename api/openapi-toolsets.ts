// The toolsets' part of the OpenAPI document (decisions.md, "Toolsets"), kept in one block so
// that it can be ported as a whole; api/openapi.ts merges it in.
import { z } from 'zod';
import { CreateToolsetSchema, ListToolsetsQuerySchema, PatchToolsetSchema, ToolsetListSchema, ToolsetSchema } from '../core/toolset-record';
import { ListCallsQuerySchema } from '../core/schemas';

type Helpers = {
  ref: (name: string) => object;
  json: (schema: object) => object;
  problem: (description: string) => object;
  queryParameters: (schema: z.ZodObject) => object[];
  callerAnswers: Record<number, object>;
};

const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

export const toolsetSchemas = {
  Toolset: ToolsetSchema, ToolsetList: ToolsetListSchema, CreateToolsetRequest: CreateToolsetSchema, PatchToolsetRequest: PatchToolsetSchema,
};

export function toolsetPaths({ ref, json, problem, queryParameters, callerAnswers }: Helpers) {
  const invalid = problem('Invalid body: a member the caller may not see, a prefix that is not [a-z0-9_-]{1,32} or is used twice');
  const mcp = (summary: string) => ({
    summary,
    responses: {
      200: { description: "The toolset's answer (application/json or text/event-stream): tools/list is the union of the connected members' tools named <prefix>__<tool>, filtered by the members' allow/deny and the caller's access; a call to a member that is not connected answers JSON-RPC -32010 with { connector_id, state, disconnect_reason, authorization_url? }, or -32042 with the authorization URL (URL-mode elicitation)" },
      ...callerAnswers,
      400: problem('Mcp-Method or Mcp-Name disagrees with the body'),
      404: problem("Unknown toolset, another owner's, or an unknown session"),
    },
  });
  return {
    '/api/v1/toolsets': {
      post: {
        summary: 'Create a toolset', requestBody: { required: true, content: json(ref('CreateToolsetRequest')) },
        responses: { 201: { description: 'Created (Location)', content: json(ref('Toolset')) }, 400: problem('Unparsable JSON'), 415: problem('Not JSON'), 422: invalid },
      },
      get: {
        summary: 'List toolsets', parameters: queryParameters(ListToolsetsQuerySchema),
        responses: { 200: { description: 'A page of toolsets', content: json(ref('ToolsetList')) }, 422: problem('Bad query') },
      },
    },
    '/api/v1/toolsets/{id}': {
      parameters: [idParam],
      get: { summary: 'Get a toolset', responses: { 200: { description: 'The toolset', content: json(ref('Toolset')) }, 404: problem('Not found') } },
      patch: {
        summary: 'Change a toolset (RFC 7396 JSON merge patch; members and access are replaced whole)',
        requestBody: { required: true, content: { 'application/merge-patch+json': { schema: ref('PatchToolsetRequest') }, 'application/json': { schema: ref('PatchToolsetRequest') } } },
        responses: { 200: { description: 'The toolset', content: json(ref('Toolset')) }, 404: problem('Not found'), 422: invalid },
      },
      delete: { summary: 'Delete a toolset (its connectors are untouched)', responses: { 204: { description: 'Deleted' }, 404: problem('Not found') } },
    },
    '/api/v1/toolsets/{id}/calls': {
      parameters: [idParam],
      get: {
        summary: "Per-call audit of the toolset's MCP traffic (each call names its member)",
        parameters: queryParameters(ListCallsQuerySchema),
        responses: { 200: { description: 'MCP calls, newest first', content: json(ref('ConnectorCallList')) }, 404: problem('Not found'), 422: problem('Bad query') },
      },
    },
    '/.well-known/oauth-protected-resource/api/v1/toolsets/{id}/mcp': {
      parameters: [idParam],
      get: {
        summary: "RFC 9728 protected-resource metadata of a toolset's MCP path: where an MCP client signs its user in",
        security: [],
        responses: { 200: { description: "resource (the toolset's mcp_url) and authorization_servers (CONNECTOR__AUTH_ISSUER)" }, 404: problem('No identity provider is configured') },
      },
    },
    '/api/v1/toolsets/{id}/mcp': {
      parameters: [idParam],
      post: mcp('MCP request to the toolset (both revisions: 2025-11-25 with a session, 2026-07-28 without)'),
      get: mcp('MCP server-to-client SSE stream (2025-11-25 session)'),
      delete: mcp('End the toolset MCP session and its upstream sessions'),
    },
  };
}
