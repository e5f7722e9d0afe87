// Why an upstream exchange failed, told to the caller as a problem: 504 when the MCP server
// took too long, 502 for everything else that kept us from getting an answer. Details name the
// kind of failure only; host names and addresses stay in the logs.
import { ProblemError } from '../core/problem';

export class UpstreamTimeoutError extends Error {
  readonly code = 'UPSTREAM_TIMEOUT';
  constructor(readonly phase: 'connect' | 'headers', readonly ms: number) {
    super(`upstream ${phase} timeout after ${ms} ms`);
  }
}

const TIMEOUT_CODES = new Set(['UPSTREAM_TIMEOUT', 'ETIMEDOUT', 'ESOCKETTIMEDOUT']);

const REASONS: Record<string, string> = {
  EBLOCKEDADDRESS: "The MCP server's address is not allowed by the service's address policy.",
  ECONNREFUSED: 'The MCP server refused the connection.',
  ECONNRESET: 'The connection to the MCP server closed before it answered.',
  EPIPE: 'The connection to the MCP server closed before it answered.',
  ENOTFOUND: "The MCP server's host name could not be resolved.",
  EAI_AGAIN: "The MCP server's host name could not be resolved.",
  EHOSTUNREACH: 'The MCP server is unreachable.',
  ENETUNREACH: 'The MCP server is unreachable.',
};

/** The error code of a failed connection, looking inside the AggregateError of happy eyeballs. */
export function errorCode(err: unknown): string {
  const e = err as { code?: unknown; errors?: unknown[] };
  if (typeof e?.code === 'string') return e.code;
  if (Array.isArray(e?.errors) && e.errors.length) return errorCode(e.errors[0]);
  return 'UNKNOWN';
}

export function problemForUpstreamError(err: unknown): ProblemError {
  const code = errorCode(err);
  if (TIMEOUT_CODES.has(code)) {
    const phase = err instanceof UpstreamTimeoutError ? err.phase : 'connect';
    return new ProblemError(504, phase === 'headers'
      ? 'The MCP server did not start its answer in time.'
      : 'The connection to the MCP server timed out.');
  }
  if (/^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO)/.test(code)) {
    return new ProblemError(502, 'The TLS handshake with the MCP server failed.');
  }
  return new ProblemError(502, REASONS[code] ?? 'The MCP server could not be reached.');
}
