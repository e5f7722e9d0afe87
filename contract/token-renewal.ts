// When a connector's token is renewed by default: the workflow schedules the renewal and the
// configuration names these defaults, so both read them here.

/** How long before a token's expiry it is renewed (CONNECTOR__REFRESH_SKEW_SECONDS). */
export const DEFAULT_REFRESH_SKEW_SECONDS = 60;

/**
 * The least time between two scheduled renewals (CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS). Tokens
 * in service live minutes to hours; an authorization server that issues tokens of seconds, by
 * mistake or on purpose, would otherwise have the worker renew every one of its connectors'
 * tokens that often, at the cost of every other owner's renewals.
 */
export const DEFAULT_MIN_REFRESH_INTERVAL_SECONDS = 30;
