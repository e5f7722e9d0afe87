// Step 1 of connecting: make the handshake any MCP client would (mcp-handshake.ts: `server/discover`
// at 2026-07-28, else `initialize`) and see whether the server wants authorization. A 401 carries
// the challenge that starts discovery (MCP 2025-11-25 and 2026-07-28, "Protected Resource Metadata
// Discovery Requirements"); older servers may send none. Because the first request carries
// `MCP-Protocol-Version`, a server that checks the header before the token answers 401 rather
// than 400, and a revision one era refuses is tried in the other before anything is concluded.
import { inStep, statusError } from './classify-error';
import { canonicalServerUri } from './canonical-uri';
import { UpstreamResponseError, UpstreamTimeoutError } from './errors';
import { findBearerChallenge, type BearerChallenge } from '../../contract/www-authenticate';
import { handshakeFailure, mcpHandshake } from '../mcp-handshake';
import { fetchResourceMetadata } from './resource-metadata';
import type { OAuthHttp } from './http';

/** How long the probe may take when the caller names no limit (CONNECTOR__CONNECT_TIMEOUT_MS's default). */
const DEFAULT_TIMEOUT_MS = 15_000;

export type AuthProbeResult =
  /** The server accepted the request (no authorization needed, or the given token works), at this revision. */
  | { kind: 'accepted'; protocolVersion: string }
  /** 401: authorization needed, or the given token was refused. */
  | { kind: 'unauthorized'; challenge: BearerChallenge | null }
  /** 403 with a Bearer challenge, typically `insufficient_scope`. */
  | { kind: 'forbidden'; challenge: BearerChallenge | null };

const STEP = 'the MCP handshake probe';

export async function probeForChallenge(
  input: { serverUrl: string; accessToken?: string; timeoutMs?: number; headers?: Record<string, string>; transport?: 'sse' },
  http: OAuthHttp,
): Promise<AuthProbeResult> {
  const url = canonicalServerUri(input.serverUrl);
  return inStep(STEP, http.logger, async () => {
    let outcome;
    try {
      outcome = await mcpHandshake({ url, token: input.accessToken ?? null, timeoutMs: input.timeoutMs ?? DEFAULT_TIMEOUT_MS, headers: input.headers, transport: input.transport }, http.fetch);
    } catch (err) {
      // A server that refuses both eras' handshake with 400 and never says 401 may still publish
      // RFC 9728 metadata at its well-known location: a bad request must not hide that it is protected.
      if (!input.accessToken && badRequest(err) && await fetchResourceMetadata({ serverUrl: url }, http).catch(() => null)) {
        return { kind: 'unauthorized', challenge: null };
      }
      throw asStepError(err);
    }
    if (outcome.kind === 'accepted') return { kind: 'accepted', protocolVersion: outcome.protocolVersion };
    const challenge = findBearerChallenge(outcome.wwwAuthenticate);
    return outcome.status === 401 ? { kind: 'unauthorized', challenge } : { kind: 'forbidden', challenge };
  });
}

function badRequest(err: unknown): boolean {
  const failure = handshakeFailure(err);
  return failure.kind === 'status' && failure.status === 400;
}

/** A failed handshake as the OAuth family says it; network errors go on to classifyError. */
function asStepError(err: unknown): unknown {
  const failure = handshakeFailure(err);
  if (failure.kind === 'timeout') return new UpstreamTimeoutError(`${STEP} did not complete in time`);
  if (failure.kind === 'status') return statusError(failure.status, STEP);
  if (failure.kind === 'era') return new UpstreamResponseError(`${STEP} failed: the server speaks no protocol revision this service does (${failure.detail.slice(0, 200)})`);
  return failure.error;
}
