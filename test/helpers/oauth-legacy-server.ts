// An MCP server of the 2025-03-26 revision: it is its own authorization server. The MCP endpoint
// and oidc-provider share one origin, the endpoint has no protected-resource metadata and
// challenges with a bare `Bearer`, so a client can only find the authorization server at the
// MCP server's origin. (Putting RFC 8414 metadata that names the MCP origin as issuer in front of
// an authorization server on another origin would not do: the authorization response's RFC 9207
// `iss` would name the other origin, and a strict client refuses it.) The challenge carries an
// RFC 6750 `scope`, the only scope such a server can state: oidc-provider grants nothing to a
// request without scope.
import type http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { bearerChallenge, createBearerVerifier, refuse, type TokenClaims } from '../fixtures/oauth/bearer-verifier';
import { startOidcServer, type OidcServer, type OidcServerOptions } from '../fixtures/oauth/oidc-server';

export interface LegacyMcpServer {
  /** The MCP endpoint, on the authorization server's origin. */
  url: string;
  as: OidcServer;
  close(): Promise<void>;
}

const MCP_PATH = '/mcp';
const SCOPE = 'mcp:read';

export async function startLegacyMcpServer(options: Omit<OidcServerOptions, 'routes' | 'issuerPath'> = {}): Promise<LegacyMcpServer> {
  let serve: http.RequestListener = (_req, res) => refuse(res, 401, bearerChallenge({ scope: SCOPE }));
  const as = await startOidcServer({ ...options, routes: { [MCP_PATH]: (req, res) => serve(req, res) } });
  const url = `${as.origin}${MCP_PATH}`;
  const verify = createBearerVerifier({ issuer: as.issuer, jwksUri: as.jwksUri, audience: url });
  serve = (req, res) => {
    void (async () => {
      const verified = await verify(req.headers.authorization);
      // 2025-03-26: no resource_metadata to follow.
      if (!verified.ok) return refuse(res, 401, bearerChallenge({ scope: SCOPE, ...(verified.error === 'invalid_token' ? { error: 'invalid_token' } : {}) }));
      const mcp = whoamiServer(verified.claims);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void transport.close().then(() => mcp.close()));
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  };
  return { url, as, close: () => as.close() };
}

function whoamiServer(claims: TokenClaims): McpServer {
  const mcp = new McpServer({ name: 'legacy-test-server', version: '1.0.0' });
  mcp.registerTool('whoami', { description: 'The token subject and scope' }, async () => ({
    content: [{ type: 'text', text: JSON.stringify({ sub: claims.sub, scope: claims.scope ?? null, client_id: claims.client_id ?? null }) }],
  }));
  return mcp;
}
