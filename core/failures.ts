// The failure types that cross Temporal (activity → workflow → API) and the one table that says
// what each means to an HTTP caller. Activities throw them, the workflow passes them on, the API
// answers with the status below: a new failure type is added here or nowhere.

export const FAILURE = {
  invalidTransition: 'InvalidTransition',
  upstreamError: 'UpstreamError',
  upstreamTimeout: 'UpstreamTimeout',
  unprocessable: 'Unprocessable',
  /** A disconnect or delete overtook the connect. */
  cancelled: 'Cancelled',
  /** The refresh token is expired or revoked: permanent. */
  invalidGrant: 'InvalidGrant',
  /** The callback carried an error or failed its checks. */
  authorizationFailed: 'AuthorizationFailed',
  /** Worth retrying: the server was unreachable or overloaded. */
  transient: 'Transient',
} as const;
export type FailureType = (typeof FAILURE)[keyof typeof FAILURE];

/** HTTP status and problem type slug for each failure a caller can meet. */
export const FAILURE_HTTP: Record<FailureType, { status: number; slug: string }> = {
  InvalidTransition: { status: 409, slug: 'invalid-state' },
  Cancelled: { status: 409, slug: 'cancelled' },
  UpstreamError: { status: 502, slug: 'upstream-error' },
  UpstreamTimeout: { status: 504, slug: 'upstream-timeout' },
  Unprocessable: { status: 422, slug: 'unprocessable' },
  // The authorization server's refusals are the upstream's answer; a transient failure that
  // outlived its retries is too.
  InvalidGrant: { status: 502, slug: 'upstream-error' },
  AuthorizationFailed: { status: 502, slug: 'upstream-error' },
  Transient: { status: 502, slug: 'upstream-error' },
};

export function isFailureType(value: unknown): value is FailureType {
  return typeof value === 'string' && Object.hasOwn(FAILURE_HTTP, value);
}
