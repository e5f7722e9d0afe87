// The proxy as the service runs it: a node http server on 127.0.0.1 dispatching the MCP path to
// createMcpProxy, with a route table given by the test.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, type StreamableHTTPClientTransportOptions } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createLogger } from '../../core/logger';
import { connectorIdFromPath } from '../../proxy/mcp-path';
import { createMcpProxy, type McpProxyOptions } from '../../proxy/mcp-proxy';
import type { RouteSource } from '../../proxy/route';

export interface ProxyHarness {
  baseUrl: string;
  mcpUrl(connectorId: string, query?: string): string;
  close(): Promise<void>;
}

export async function startProxy(
  routes: RouteSource,
  options: Partial<Omit<McpProxyOptions, 'routes'>> = {},
): Promise<ProxyHarness> {
  const proxy = createMcpProxy({
    routes,
    policy: { blockPrivateNetworks: false },
    logger: createLogger('proxy-test', process.env.LOG_LEVEL ?? 'silent'),
    ...options,
  });
  const server = http.createServer((req, res) => {
    const id = connectorIdFromPath(req.url ?? '/');
    if (id === null) res.writeHead(404).end();
    else proxy.handle(req, res, id);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    mcpUrl: (id, query = '') => `${baseUrl}/api/v1/connectors/${id}/mcp${query}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      proxy.close();
    },
  };
}

/** A real MCP SDK client, connected through the given URL. */
export async function connectClient(url: string, options: StreamableHTTPClientTransportOptions = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), options);
  const client = new Client({ name: 'proxy-test-client', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}
