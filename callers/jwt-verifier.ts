// Access tokens from the platform's identity provider (CONNECTOR__AUTH_ISSUER), checked with
// jose: the issuer's OpenID discovery document names its JWKS, fetched through the address guard
// and cached; a token signed with a key not yet seen refetches the set, at most once per cooldown.
// Only asymmetric algorithms are accepted (never `none`, never HMAC, so a public key cannot be
// used as a shared secret), `exp` is required, `nbf` and `exp` get a small leeway.
import { createRemoteJWKSet, customFetch, decodeJwt, errors, jwtVerify, type JWTPayload } from 'jose';
import type { Caller } from './caller';
import { IdentityProviderUnavailable, Unauthenticated, oidcOwner } from './caller';
import { VerifiedTokens } from './verified-tokens';

/** A sign-in ID token of the platform's issuer that does not verify. */
export class InvalidSignIn extends Error {}

export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface JwtSettings {
  issuer: string;
  /** Accepted `aud` values everywhere (default: BASE_URL). */
  audiences: string[];
  subjectClaim: string;
  rolesClaim: string;
  adminRole: string;
}

export const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const CLOCK_TOLERANCE_SECONDS = 30;
const MAX_TOKEN_BYTES = 8 * 1024;
const KEYS_COOLDOWN_MS = 30_000;
const KEYS_MAX_AGE_MS = 10 * 60_000;

type KeySet = ReturnType<typeof createRemoteJWKSet>;

export class JwtVerifier {
  private keySet: Promise<KeySet> | null = null;
  private readonly verified: VerifiedTokens;

  constructor(private readonly settings: JwtSettings, private readonly fetch: FetchLike, verified?: VerifiedTokens) {
    this.verified = verified ?? new VerifiedTokens();
  }

  /**
   * The caller a token verified before still names (see verified-tokens.ts), or null; synchronous,
   * so that a cached caller costs the MCP path no promise.
   */
  cached(token: string, extraAudiences: readonly string[] = [], digest?: string): Caller | null {
    if (token.length > MAX_TOKEN_BYTES) return null;
    const key = digest ? VerifiedTokens.keyOfDigest(digest) : VerifiedTokens.keyOf(token);
    return this.verified.lookup(key, this.accepted(extraAudiences));
  }

  /** The caller a token names; `extraAudiences` are accepted here too (a connector's mcp_url). */
  async verify(token: string, extraAudiences: readonly string[] = []): Promise<Caller> {
    if (token.length > MAX_TOKEN_BYTES) throw new Unauthenticated(true, 'the access token is too large');
    const key = VerifiedTokens.keyOf(token);
    const audience = this.accepted(extraAudiences);
    const known = this.verified.lookup(key, audience);
    if (known) return known;
    const keys = await this.keys();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.settings.issuer,
        audience,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      throw refusal(err);
    }
    const subject = payload[this.settings.subjectClaim];
    if (typeof subject !== 'string' || subject.length === 0 || subject.length > 256) {
      throw new Unauthenticated(true, `the access token has no usable ${this.settings.subjectClaim} claim`);
    }
    const roles = rolesOf(payload[this.settings.rolesClaim]);
    const caller: Caller = {
      subject: oidcOwner(subject),
      displayName: displayNameOf(payload) ?? subject,
      admin: roles.includes(this.settings.adminRole),
      ...(roles.length > 0 ? { roles } : {}),
    };
    const audiences = typeof payload.aud === 'string' ? [payload.aud] : payload.aud ?? [];
    // exp is required above; the key set is trusted for KEYS_MAX_AGE_MS before jose refetches it.
    const validUntilMs = Math.min(payload.exp! * 1000, Date.now() + KEYS_MAX_AGE_MS);
    this.verified.remember(key, { caller, audiences, validUntilMs });
    return caller;
  }

  /**
   * The owner (oidc:<subject>) a sign-in ID token of this issuer names, its signature, issuer and
   * expiry checked with the same keys as access tokens. Its audience is the client it was issued
   * to (the console), not this service, so it is not checked: what matters is whose it is.
   * Throws InvalidSignIn when it does not verify.
   */
  async signInOwner(idToken: string): Promise<string> {
    if (idToken.length > MAX_TOKEN_BYTES) throw new InvalidSignIn('the ID token is too large');
    const keys = await this.keys();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, keys, {
        issuer: this.settings.issuer, algorithms: ALGORITHMS, clockTolerance: CLOCK_TOLERANCE_SECONDS, requiredClaims: ['exp'],
      }));
    } catch (err) {
      const why = refusal(err);
      if (why instanceof IdentityProviderUnavailable) throw why;
      throw new InvalidSignIn(err instanceof errors.JWTExpired ? 'has expired' : "does not verify with the identity provider's keys");
    }
    const subject = payload[this.settings.subjectClaim];
    if (typeof subject !== 'string' || subject.length === 0 || subject.length > 256) throw new InvalidSignIn(`has no usable ${this.settings.subjectClaim} claim`);
    return oidcOwner(subject);
  }

  /** Whether a token names this verifier's issuer (unverified: which keys to check it with). */
  issues(token: string): boolean {
    try {
      return decodeJwt(token).iss === this.settings.issuer;
    } catch {
      return false;
    }
  }

  private accepted(extraAudiences: readonly string[]): string[] {
    return extraAudiences.length ? [...this.settings.audiences, ...extraAudiences] : this.settings.audiences;
  }

  /** Discovery once (again after a failure), then jose's cached, rotating key set. */
  private keys(): Promise<KeySet> {
    this.keySet ??= this.discover().catch((err: unknown) => {
      this.keySet = null;
      throw err;
    });
    return this.keySet;
  }

  private async discover(): Promise<KeySet> {
    const issuer = this.settings.issuer;
    const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    let document: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const response = await this.fetch(url, { headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      document = (await response.json()) as typeof document;
    } catch (err) {
      throw new IdentityProviderUnavailable(`the identity provider's discovery document could not be read (${(err as Error).message})`);
    }
    if (document.issuer !== issuer) throw new IdentityProviderUnavailable('the discovery document names another issuer');
    if (typeof document.jwks_uri !== 'string') throw new IdentityProviderUnavailable('the discovery document has no jwks_uri');
    const fetchKeys = this.fetch;
    return createRemoteJWKSet(new URL(document.jwks_uri), {
      cooldownDuration: KEYS_COOLDOWN_MS,
      cacheMaxAge: KEYS_MAX_AGE_MS,
      timeoutDuration: 5_000,
      [customFetch]: (input: string, init: RequestInit) => fetchKeys(input, init),
    });
  }
}

/**
 * The token's `email`, else its `name` (OpenID Connect standard claims), when usable. Control and
 * format characters (bidi overrides among them) are dropped: the name is shown to other people
 * on the consent page, and must read as what it is.
 */
function displayNameOf(payload: JWTPayload): string | null {
  for (const claim of [payload.email, payload.name]) {
    if (typeof claim !== 'string' || claim.length > 256) continue;
    const readable = claim.replace(/[\p{Cc}\p{Cf}]/gu, '').trim();
    if (readable.length > 0) return readable;
  }
  return null;
}

function rolesOf(claim: unknown): string[] {
  if (typeof claim === 'string') return claim.split(' ').filter(Boolean);
  if (Array.isArray(claim)) return claim.filter((r): r is string => typeof r === 'string');
  return [];
}

/** jose's refusals name the check that failed, never the token's content. */
function refusal(err: unknown): Error {
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) {
    return new IdentityProviderUnavailable("the identity provider's keys could not be read");
  }
  if (err instanceof errors.JOSEError) {
    if (err instanceof errors.JWTExpired) return new Unauthenticated(true, 'the access token has expired');
    if (err instanceof errors.JWTClaimValidationFailed) return new Unauthenticated(true, `the access token's ${err.claim} claim is not accepted`);
    if (err instanceof errors.JWKSNoMatchingKey) return new Unauthenticated(true, 'the access token is signed with an unknown key');
    return new Unauthenticated(true, 'the access token is not valid');
  }
  if (err instanceof TypeError || (err as { name?: string }).name === 'AbortError') {
    return new IdentityProviderUnavailable("the identity provider's keys could not be read");
  }
  return new Unauthenticated(true, 'the access token is not valid');
}
