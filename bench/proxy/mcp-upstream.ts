// Bench upstream: a real MCP server (SDK McpServer + StreamableHTTPServerTransport, stateful
// sessions, SSE answers as the SDK gives by default) with an `echo` tool, on 127.0.0.1. It
// refuses requests without the expected bearer token, so every path must carry it.
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const TOKEN = process.env.BENCH_TOKEN ?? 'bench-token';
const sessions = new Map<string, StreamableHTTPServerTransport>();

function newServer(): McpServer {
  const server = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

async function transportFor(req: IncomingMessage): Promise<StreamableHTTPServerTransport | undefined> {
  const id = req.headers['mcp-session-id'];
  if (typeof id === 'string') return sessions.get(id);
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sid) => void sessions.set(sid, transport),
  });
  await newServer().connect(transport);
  return transport;
}

const server = http.createServer((req, res) => {
  // A DPoP-bound connector's proof is not verified: that cost is the server's, not the proxy's.
  const { authorization } = req.headers;
  if (authorization !== `Bearer ${TOKEN}` && !(authorization === `DPoP ${TOKEN}` && req.headers.dpop)) {
    res.writeHead(401).end();
    return;
  }
  transportFor(req)
    .then((transport) => (transport ? transport.handleRequest(req, res) : void res.writeHead(404).end()))
    .catch(() => res.destroy());
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => process.exit(0));
