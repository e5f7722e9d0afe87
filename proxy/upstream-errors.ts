// Why an upstream exchange failed, told to the caller as a problem: 504 when the MCP server
// took too long, 502 for everything else that kept us from getting an answer. Details name the
// kind of failure only (platform/network-error.ts); host names and addresses stay in the logs.
import { NETWORK_FAILURE_TEXT, networkFailure } from '../platform/network-error';
import { ProblemError } from '../contract/problem';
import { BodyLengthMismatch } from './upstream-body';

export class UpstreamTimeoutError extends Error {
  readonly code = 'UPSTREAM_TIMEOUT';
  constructor(readonly phase: 'connect' | 'headers', readonly ms: number) {
    super(`upstream ${phase} timeout after ${ms} ms`);
  }
}

/** The error code of a failed connection, for logs. */
export function errorCode(err: unknown): string {
  return networkFailure(err)?.code ?? (typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : 'UNKNOWN');
}

export function problemForUpstreamError(err: unknown): ProblemError {
  if (err instanceof BodyLengthMismatch) return new ProblemError(502, 'The request body did not match the length declared for it; nothing past it was sent.');
  const failure = networkFailure(err);
  if (failure?.kind === 'timeout') {
    return new ProblemError(504, err instanceof UpstreamTimeoutError && err.phase === 'headers'
      ? 'The MCP server did not start its answer in time.'
      : 'The connection to the MCP server timed out.');
  }
  if (!failure) return new ProblemError(502, 'The MCP server could not be reached.');
  if (failure.kind === 'blocked') return new ProblemError(502, `The MCP server's address is not allowed by the service's address policy.`);
  if (failure.kind === 'tls' || failure.kind === 'dns') return new ProblemError(502, `The MCP server could not be reached: ${NETWORK_FAILURE_TEXT[failure.kind]}.`);
  return new ProblemError(502, `The MCP server ${NETWORK_FAILURE_TEXT[failure.kind]}.`);
}
