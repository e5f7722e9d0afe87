// The guarded fetch's own refusals (guarded-fetch.ts): redirects its policy does not follow. The
// address guard's refusal is its own error (BlockedAddressError). They carry no HTTP status:
// each caller says what a refusal means for it (the OAuth steps turn it into their family in
// activities/oauth/classify-error.ts; the MCP probe and the callers' key fetch keep its message).

/** `insecure`: https to plain http; `too-many`: past the hop limit; `not-allowed`: the caller asked for none; `scheme`: not http(s). */
export type RedirectRefusal = 'insecure' | 'too-many' | 'not-allowed' | 'scheme';

export class RedirectRefusedError extends Error {
  constructor(readonly refusal: RedirectRefusal, message: string) {
    super(message);
    this.name = 'RedirectRefusedError';
  }
}
