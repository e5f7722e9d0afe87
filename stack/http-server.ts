// One HTTP server that dispatches by path: the MCP path goes to the proxy, everything else to
// the REST API. Used by the embedded stack (API and proxy on one port, no extra hop) and by the
// production entry points (each with only its own half).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../core/problem';
import { originRefusal, type OriginPolicy } from '../callers/request-origin';
import { connectorIdFromPath } from '../proxy/mcp-path';
import type { McpProxy } from '../proxy/mcp-proxy';

export interface Handlers {
  api?: Koa;
  proxy?: McpProxy;
  /** Applied to every request, whichever half serves it. */
  origin: OriginPolicy;
}

export function createHttpServer(handlers: Handlers): http.Server {
  const api = handlers.api?.callback();
  const server = http.createServer((req, res) => {
    const refused = originRefusal(req.headers, handlers.origin);
    if (refused) {
      res.writeHead(403, { 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'no-store' });
      res.end(JSON.stringify(problemBody(403, refused)));
      return;
    }
    const id = connectorIdFromPath(req.url ?? '/');
    if (id !== null && handlers.proxy) return handlers.proxy.handle(req, res, id);
    if (api) return void api(req, res);
    res.writeHead(404, { 'content-type': PROBLEM_CONTENT_TYPE });
    res.end(JSON.stringify(problemBody(404, 'this process serves only the MCP path')));
  });
  server.on('clientError', answerClientError);
  return server;
}

/** Requests Node's parser refuses (bad bytes, huge headers) still get a problem body. */
function answerClientError(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const body = JSON.stringify(problemBody(status, status === 431 ? 'the request headers are too large' : 'the request is malformed'));
  socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
    `content-type: ${PROBLEM_CONTENT_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

export async function listen(server: http.Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
