// The toolset's own answers to its client: one JSON-RPC message as JSON, or an accepted
// notification or response (202). Problems of the HTTP exchange go through problem-response.ts.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { RpcMessage } from './rpc';

export function sendMessage(res: ServerResponse, status: number, message: RpcMessage, headers: OutgoingHttpHeaders = {}): void {
  if (res.headersSent) return void res.destroy();
  if (res.destroyed) return;
  const body = JSON.stringify(message);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...headers });
  res.end(body);
}

export function sendAccepted(res: ServerResponse, headers: OutgoingHttpHeaders = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(202, headers);
  res.end();
}
