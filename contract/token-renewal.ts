// When a connector's token is renewed by default: the workflow schedules the renewal and the
// configuration names these defaults, so both read them here.

/** How long before a token's expiry it is renewed (CONNECTOR__REFRESH_SKEW_SECONDS). */
export const DEFAULT_REFRESH_SKEW_SECONDS = 60;

/**
 * How long before its expiry a token that lives `lifeMs` is renewed: the skew, shortened for
 * short-lived tokens to a third of their life. A token of a steady life is renewed every
 * `lifeMs` less this (bench:scale spreads a fleet's first renewals over that period).
 */
export function renewalSkewMs(lifeMs: number, skewSeconds = DEFAULT_REFRESH_SKEW_SECONDS): number {
  return Math.min(skewSeconds * 1000, Math.max(0, lifeMs / 3));
}

/** How long after it was obtained a token that lives `lifeMs` is renewed: its life less the skew, never sooner than the floor. */
export function renewalPeriodMs(lifeMs: number, skewSeconds = DEFAULT_REFRESH_SKEW_SECONDS, minIntervalSeconds = 0): number {
  return Math.max(lifeMs - renewalSkewMs(lifeMs, skewSeconds), minIntervalSeconds * 1000);
}

/**
 * The least time between two scheduled renewals (CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS). Tokens
 * in service live minutes to hours; an authorization server that issues tokens of seconds, by
 * mistake or on purpose, would otherwise have the worker renew every one of its connectors'
 * tokens that often, at the cost of every other owner's renewals.
 */
export const DEFAULT_MIN_REFRESH_INTERVAL_SECONDS = 30;
