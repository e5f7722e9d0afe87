// An error the service itself answers to a JSON-RPC request on an MCP path, in MCP's language
// (decisions.md, "MCP paths answer in JSON-RPC"): a JSON-RPC error object with the request's id
// (null when unknown), sent with the HTTP status of the problem, which rides in `error.data`.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { ProblemError } from '../contract/problem';

export function sendRpcError(res: ServerResponse, id: string | number | null, code: number, problem: ProblemError, headers: OutgoingHttpHeaders = {}): void {
  if (res.headersSent) return void res.destroy();
  if (res.destroyed) return;
  const { title: _title, status: _status, ...data } = problem.toBody();
  const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message: problem.detail, data } });
  res.writeHead(problem.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...headers });
  res.end(body);
}
