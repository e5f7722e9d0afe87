// The typed error family of the OAuth client steps: one class per condition, each with its
// failure type (contract/failures.ts: whether retrying later may succeed, and through FAILURE_HTTP what
// the API answers) and the RFC 6749 `error` code relayed to the user's redirect. Messages are safe
// to show: they never carry a token, secret, code or verifier, and no foreign error is attached as
// `cause` (a cause would travel into Temporal history with whatever it held).
import { FAILURE, TypedFailure } from '../../contract/failures';

export abstract class OAuthError extends TypedFailure {
  /** Stable machine-readable name of the condition. */
  abstract readonly code: string;
  /** The `error` value to relay to a redirect_url (RFC 6749 section 4.1.2.1). */
  readonly oauthError: string = 'server_error';

  /** The workflow relays `oauthError` to the user's redirect when the authorization fails. */
  override failureDetails(): unknown[] {
    return [{ oauthError: this.oauthError }];
  }
}

/** A URL that must not be contacted: a forbidden address (cloud metadata, link-local, ...). */
export class ForbiddenAddressError extends OAuthError {
  readonly code = 'forbidden_address';
  readonly failure = FAILURE.unprocessable;
}

/** An authorization-server URL over plain http to a host that is not loopback. */
export class InsecureUrlError extends OAuthError {
  readonly code = 'insecure_url';
  readonly failure = FAILURE.unprocessable;
}

/** The MCP server URL cannot serve as a resource identifier. */
export class InvalidServerUrlError extends OAuthError {
  readonly code = 'invalid_server_url';
  readonly failure = FAILURE.unprocessable;
}

export class UpstreamTimeoutError extends OAuthError {
  readonly code = 'upstream_timeout';
  readonly failure = FAILURE.transient;
  override readonly oauthError = 'temporarily_unavailable';
}

/** Network failure, 5xx or 429: the same request may succeed later. */
export class UpstreamUnavailableError extends OAuthError {
  readonly code = 'upstream_unavailable';
  readonly failure = FAILURE.transient;
  override readonly oauthError = 'temporarily_unavailable';
}

/** A response that does not conform (bad JSON, wrong content type, unexpected status). */
export class UpstreamResponseError extends OAuthError {
  readonly code = 'upstream_response_invalid';
  readonly failure = FAILURE.upstreamError;
}

export class TooManyRedirectsError extends OAuthError {
  readonly code = 'too_many_redirects';
  readonly failure = FAILURE.upstreamError;
}

/** RFC 9728 metadata that is missing required fields or is not usable. */
export class ResourceMetadataError extends OAuthError {
  readonly code = 'resource_metadata_invalid';
  readonly failure = FAILURE.upstreamError;
}

/** RFC 9728 metadata describing another resource than the MCP server. */
export class ResourceMismatchError extends OAuthError {
  readonly code = 'resource_mismatch';
  readonly failure = FAILURE.upstreamError;
}

/** No usable RFC 8414 / OpenID discovery document for the authorization server. */
export class AuthorizationServerMetadataError extends OAuthError {
  readonly code = 'authorization_server_metadata_invalid';
  readonly failure = FAILURE.upstreamError;
}

/** The discovery document names another issuer than the one it was fetched for. */
export class IssuerMismatchError extends OAuthError {
  readonly code = 'issuer_mismatch';
  readonly failure = FAILURE.upstreamError;
}

/** The authorization server does not advertise PKCE with S256. */
export class PkceNotSupportedError extends OAuthError {
  readonly code = 'pkce_not_supported';
  readonly failure = FAILURE.unprocessable;
}

/** No client_id given, and the server offers neither metadata documents nor registration. */
export class NoClientIdentityError extends OAuthError {
  readonly code = 'no_client_identity';
  readonly failure = FAILURE.unprocessable;
  override readonly oauthError = 'unauthorized_client';
}

/**
 * SEP-2352: the server now names another authorization server than the one the connector's client
 * credentials (given at create, or the preset's) were used with; they are not sent to it.
 */
export class AuthorizationServerChangedError extends OAuthError {
  readonly code = 'authorization_server_changed';
  readonly failure = FAILURE.unprocessable;
  override readonly oauthError = 'unauthorized_client';
}

/** No token endpoint authentication method both sides support. */
export class UnsupportedAuthMethodError extends OAuthError {
  readonly code = 'unsupported_auth_method';
  readonly failure = FAILURE.unprocessable;
  override readonly oauthError = 'unauthorized_client';
}

/** The authorization server answered a request with an OAuth error (other than invalid_grant). */
export class AuthorizationServerError extends OAuthError {
  readonly code = 'authorization_server_error';
  readonly failure = FAILURE.upstreamError;
  override readonly oauthError: string;
  constructor(detail: string, oauthError: string) {
    super(detail);
    this.oauthError = oauthError;
  }
}

/** The code or refresh token is expired, revoked or used: only a new authorization helps. */
export class InvalidGrantError extends OAuthError {
  readonly code = 'invalid_grant';
  readonly failure = FAILURE.invalidGrant;
  override readonly oauthError = 'invalid_grant';
}

/** The user or the authorization server refused the authorization (error in the callback). */
export class AuthorizationDeniedError extends OAuthError {
  readonly code = 'authorization_denied';
  readonly failure = FAILURE.authorizationFailed;
  override readonly oauthError: string;
  constructor(detail: string, oauthError: string) {
    super(detail);
    this.oauthError = oauthError;
  }
}

/** A callback without a code, or whose state does not match. */
export class InvalidCallbackError extends OAuthError {
  readonly code = 'invalid_callback';
  readonly failure = FAILURE.authorizationFailed;
  override readonly oauthError = 'invalid_request';
}

/** RFC 9207: the callback's `iss` is missing (where required) or names another issuer. */
export class CallbackIssuerError extends OAuthError {
  readonly code = 'callback_issuer_mismatch';
  readonly failure = FAILURE.authorizationFailed;
  override readonly oauthError = 'invalid_request';
}

/** The token endpoint issued a token the service cannot use as a Bearer token (e.g. DPoP). */
export class UnsupportedTokenTypeError extends OAuthError {
  readonly code = 'unsupported_token_type';
  readonly failure = FAILURE.upstreamError;
}

/** Something failed that none of the above describes; the detail names only the step. */
export class OAuthInternalError extends OAuthError {
  readonly code = 'internal_error';
  readonly failure = FAILURE.upstreamError;
}
