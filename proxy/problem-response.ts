// Writes an RFC 9457 answer, or cuts the connection when the upstream's answer already started
// (a status line cannot be taken back; a truncated stream tells the client it failed).
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { PROBLEM_CONTENT_TYPE, type ProblemError } from '../core/problem';

export function sendProblem(res: ServerResponse, problem: ProblemError, headers: OutgoingHttpHeaders = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (res.destroyed) return;
  const body = JSON.stringify(problem.toBody());
  res.writeHead(problem.status, {
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
}
