// The proxy as the service runs it: a node http server on 127.0.0.1 dispatching the MCP path to
// createMcpProxy, with a route table given by the test.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, type StreamableHTTPClientTransportOptions } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createLogger } from '../../platform/logger';
import { connectorIdFromPath } from '../../proxy/mcp-path';
import { createMcpProxy, type McpProxyOptions } from '../../proxy/mcp-proxy';
import type { RouteSource } from '../../proxy/route';
import { OPERATIONS, answersOf } from '../../contract/operations';
import { PROBLEM_CONTENT_TYPE } from '../../contract/problem';

const MCP_OPERATIONS: Record<string, keyof typeof OPERATIONS> = { POST: 'postMcp', GET: 'getMcp', DELETE: 'deleteMcp' };

/**
 * Notes every problem the proxy answers itself (relayed answers are the MCP server's) whose
 * status the MCP path's declaration (contract/operations.ts) does not list.
 */
function watchDeclared(req: http.IncomingMessage, res: http.ServerResponse, undeclared: string[]): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => http.ServerResponse;
  // Headers given to writeHead are never readable through getHeader: they are read here.
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const headers = rest.find((arg) => typeof arg === 'object' && arg !== null) as http.OutgoingHttpHeaders | undefined;
    const type = String(headers?.['content-type'] ?? res.getHeader('content-type') ?? '');
    const operation = OPERATIONS[MCP_OPERATIONS[req.method ?? ''] ?? 'postMcp'];
    if (type.startsWith(PROBLEM_CONTENT_TYPE) && !answersOf(operation)[status]) undeclared.push(`${req.method} ${status}`);
    return writeHead(status, ...rest);
  }) as typeof res.writeHead;
}

export interface ProxyHarness {
  baseUrl: string;
  mcpUrl(connectorId: string, query?: string): string;
  /** What the change feed does on a connector's transition. */
  invalidate(connectorId: string): void;
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
  const undeclared: string[] = [];
  const server = http.createServer((req, res) => {
    watchDeclared(req, res, undeclared);
    const id = connectorIdFromPath(req.url ?? '/');
    if (id === null) res.writeHead(404).end();
    else proxy.handle(req, res, id);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    mcpUrl: (id, query = '') => `${baseUrl}/api/v1/connectors/${id}/mcp${query}`,
    invalidate: (id) => proxy.invalidate(id),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      proxy.close();
      if (undeclared.length) throw new Error(`the proxy answered statuses the MCP path does not declare: ${undeclared.join(', ')}`);
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
