// RFC 9728 protected-resource metadata for each connector's MCP path, so that a stock MCP client
// that gets the proxy's 401 can sign its user in against the platform's identity provider by the
// MCP authorization spec. Answered for any well-formed id, whether or not such a connector exists
// or is the caller's: the document says nothing about the connector.
import { isConnectorId } from '../../contract/connector-id';
import { ProblemError } from '../../contract/problem';
import type { Handler } from '../router';

export const PROTECTED_RESOURCE_PREFIX = '/.well-known/oauth-protected-resource';

export function mcpUrlOf(baseUrl: string, connectorId: string): string {
  return `${baseUrl}/api/v1/connectors/${connectorId}/mcp`;
}

/** Where the proxy's challenge points an MCP client for the connector `connectorId`. */
export function protectedResourceMetadataUrl(baseUrl: string, connectorId: string): string {
  return `${baseUrl}${PROTECTED_RESOURCE_PREFIX}/api/v1/connectors/${connectorId}/mcp`;
}

/** `scopes`: CONNECTOR__AUTH_SCOPES, listed as `scopes_supported` so that a client knows what to ask for. */
export function protectedResourceHandlers(deps: { baseUrl: string; issuer: string | null; scopes?: readonly string[] }): {
  getProtectedResourceMetadata: Handler<'getProtectedResourceMetadata'>;
  getToolsetProtectedResourceMetadata: Handler<'getToolsetProtectedResourceMetadata'>;
} {
  // A toolset's MCP path is a protected resource of its own, described the same way.
  const metadata = (collection: 'connectors' | 'toolsets', name: string) => (ctx: Parameters<Handler<'getProtectedResourceMetadata'>>[0]) => {
    const id = String(ctx.params.id).toLowerCase();
    if (!deps.issuer) throw new ProblemError(404, 'the MCP path takes API keys only: there is no authorization server to sign in with');
    if (!isConnectorId(id)) throw new ProblemError(404, 'no such resource');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = {
      resource: `${deps.baseUrl}/api/v1/${collection}/${id}/mcp`,
      authorization_servers: [deps.issuer],
      ...(deps.scopes?.length ? { scopes_supported: [...deps.scopes] } : {}),
      bearer_methods_supported: ['header'],
      resource_name: name,
    };
  };
  return { getProtectedResourceMetadata: metadata('connectors', 'MCP connector'), getToolsetProtectedResourceMetadata: metadata('toolsets', 'MCP toolset') };
}
