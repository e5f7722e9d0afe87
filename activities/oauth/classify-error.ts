// The one place where foreign errors (oauth4webapi, undici, the address guard) become the typed
// family in errors.ts. Only fixed wording and the server's own OAuth error code and description
// are kept; the foreign error itself is dropped, because its cause may hold a response body with
// tokens in it.
import * as oauth from 'oauth4webapi';
import type { Logger } from '../../platform/logger';
import { networkFailure } from '../../platform/network-error';
import { RedirectRefusedError } from '../../platform/network-policy-errors';
import {
  AuthorizationDeniedError, AuthorizationServerError, ForbiddenAddressError, InsecureUrlError, InvalidGrantError,
  OAuthError, OAuthInternalError, TooManyRedirectsError, UpstreamResponseError, UpstreamTimeoutError, UpstreamUnavailableError,
} from './errors';
import { OAUTH_ERROR_CODE } from './schemas';

/** Maps any error thrown while doing `step` (e.g. "the token request") to the typed family; `logger` hears of the unexpected ones. */
export function classifyError(err: unknown, step: string, logger?: Logger): OAuthError {
  if (err instanceof OAuthError) return err;
  if (err instanceof RedirectRefusedError) return fromRedirect(err);
  const network = networkFailure(err);
  if (network?.kind === 'blocked') return new ForbiddenAddressError(`${step} was refused: ${network.guardMessage}`);
  if (network?.kind === 'timeout') return new UpstreamTimeoutError(`${step} did not complete in time`);
  if (err instanceof oauth.ResponseBodyError) return fromOAuthBody(err, step);
  if (err instanceof oauth.AuthorizationResponseError) {
    return new AuthorizationDeniedError(withDescription(`the authorization server refused the authorization (${safeCode(err.error)})`, err.error_description), safeCode(err.error));
  }
  if (err instanceof oauth.WWWAuthenticateChallengeError) {
    return new AuthorizationServerError(`${step} was refused: the client authentication failed (HTTP ${err.status})`, 'invalid_client');
  }
  if (err instanceof oauth.OperationProcessingError) return fromProcessing(err, step);
  if (err instanceof SyntaxError) return new UpstreamResponseError(`${step} failed: the body is not valid JSON`);
  if (network) return new UpstreamUnavailableError(`${step} failed: the server could not be reached (${network.code})`);
  if (err instanceof TypeError && err.message === 'fetch failed') {
    return new UpstreamUnavailableError(`${step} failed: the server could not be reached`);
  }
  logger?.error({ step, errorName: (err as Error)?.name, errorMessage: (err as Error)?.message }, 'unexpected error in an OAuth step');
  return new OAuthInternalError(`${step} failed unexpectedly`);
}

/** Runs one step and throws only typed errors out of it. */
export async function inStep<T>(step: string, logger: Logger | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw classifyError(err, step, logger);
  }
}

/** A non-2xx answer the caller did not expect, classified by status. */
export function statusError(status: number, step: string): OAuthError {
  if (status >= 500 || status === 429 || status === 408) {
    return new UpstreamUnavailableError(`${step} failed: the server answered HTTP ${status}`);
  }
  return new UpstreamResponseError(`${step} failed: the server answered HTTP ${status}`);
}

/** The guarded fetch's refusal of a redirect; its message names only origins and the hop limit. */
function fromRedirect(err: RedirectRefusedError): OAuthError {
  if (err.refusal === 'insecure') return new InsecureUrlError(err.message);
  if (err.refusal === 'too-many') return new TooManyRedirectsError(err.message);
  return new UpstreamResponseError(err.message);
}

function fromOAuthBody(err: oauth.ResponseBodyError, step: string): OAuthError {
  const code = safeCode(err.error);
  if (code === 'invalid_grant') {
    return new InvalidGrantError(withDescription(`${step} was refused: the grant is invalid, expired or revoked`, err.error_description));
  }
  if (err.status >= 500 || code === 'temporarily_unavailable' || code === 'server_error') {
    return new UpstreamUnavailableError(`${step} failed: the authorization server reported ${code}`);
  }
  return refusedByServer(step, code, err.error_description);
}

function fromProcessing(err: oauth.OperationProcessingError, step: string): OAuthError {
  const cause = (err as { cause?: unknown }).cause;
  if (err.code === oauth.RESPONSE_IS_NOT_CONFORM && cause instanceof Object && 'status' in cause) {
    return statusError(Number((cause as { status: unknown }).status), step);
  }
  // oauth4webapi's messages are fixed sentences about the response's shape, never its values.
  return new UpstreamResponseError(`${step} failed: ${err.message}`);
}

/** The server refused `step` with an RFC 6749 error code; its description, cleaned, is kept. */
export function refusedByServer(step: string, code: string, description: unknown): AuthorizationServerError {
  return new AuthorizationServerError(withDescription(`${step} was refused (${code})`, description), code);
}

/** An OAuth error code is an ASCII token; anything else is not relayed as is. */
function safeCode(value: unknown): string {
  return typeof value === 'string' && OAUTH_ERROR_CODE.test(value) ? value : 'server_error';
}

function withDescription(message: string, description: unknown): string {
  if (typeof description !== 'string' || description.length === 0) return message;
  const clean = description.replace(/[^\x20-\x7E]/g, ' ').slice(0, 200);
  return `${message}: ${clean}`;
}
