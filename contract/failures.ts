// The failure types that cross Temporal (activity → workflow → API) and the one table that says
// what each means to an HTTP caller. Activities throw a TypedFailure (or an ApplicationFailure of
// one of these types), the workflow passes the type on, the API answers with the status below:
// no error class carries a status of its own, and a new failure type is added here or nowhere.

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
  /** Worth retrying: the server was unreachable or overloaded. The only type activities retry. */
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
  Transient: { status: 502, slug: 'upstream-error' },
  // A refused or malformed callback is the user's (or the browser's) request going wrong: the
  // callback answers every failure with its error page, a 400 (decisions.md, "Endpoints").
  AuthorizationFailed: { status: 400, slug: 'authorization-failed' },
};

export function isFailureType(value: unknown): value is FailureType {
  return typeof value === 'string' && Object.hasOwn(FAILURE_HTTP, value);
}

/**
 * The base of every typed error a side effect throws: it names its failure type, never a status
 * (FAILURE_HTTP gives that), and its message is safe to show. The activity boundary turns it into
 * an ApplicationFailure of that type (activities/typed-failure.ts).
 */
export abstract class TypedFailure extends Error {
  abstract readonly failure: FailureType;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }

  /** Whether a later attempt may succeed: only a transient failure is retried. */
  get retryable(): boolean {
    return this.failure === FAILURE.transient;
  }

  /** What the workflow reads besides the type (e.g. the OAuth `error` code to relay). */
  failureDetails(): unknown[] {
    return [];
  }
}
