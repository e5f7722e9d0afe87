// The one check of a caller's credential, used by the REST API and the MCP path alike. A
// credential is always `Authorization: Bearer <credential>`: an API key (CONNECTOR__API_KEYS) or
// an access token of the platform's identity provider (CONNECTOR__AUTH_ISSUER). Neither is logged,
// echoed in an answer or forwarded upstream.
import { OPEN_CALLER, Unauthenticated, type Caller } from './caller';
import type { ApiKeyEntry } from '../config/config';
import { ApiKeys, credentialDigest } from './api-keys';
import { JwtVerifier, type FetchLike, type JwtSettings } from './jwt-verifier';

export interface CallerAuthSettings {
  enabled: boolean;
  apiKeys: readonly ApiKeyEntry[];
  /** Null: no identity provider, API keys only. */
  jwt: JwtSettings | null;
}

export interface Authenticator {
  readonly enabled: boolean;
  /** The caller behind an Authorization header; throws Unauthenticated or IdentityProviderUnavailable. */
  authenticate(authorization: string | undefined, extraAudiences?: readonly string[]): Promise<Caller>;
  /**
   * The caller when it is known without waiting (an API key, an access token verified before),
   * else null, and `authenticate` decides (it also gives the reason for a refusal).
   */
  known(authorization: string | undefined, extraAudiences?: readonly string[]): Caller | null;
  /**
   * The owner a sign-in ID token of the platform's identity provider names, verified (throws
   * InvalidSignIn, IdentityProviderUnavailable); null for a token of another issuer, or with no
   * identity provider configured (whoever issued it verifies it).
   */
  signInOwner(idToken: string): Promise<string | null>;
}

// RFC 6750 b64token, one credential, nothing else in the header.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * The request's one Authorization header. Node keeps only the first of repeated ones; two
 * credentials in one request are refused instead of silently choosing one.
 */
export function authorizationOf(rawHeaders: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() !== 'authorization') continue;
    if (found !== undefined) throw new Unauthenticated(true, 'the request has more than one Authorization header');
    found = rawHeaders[i + 1];
  }
  return found || undefined;
}

export function createAuthenticator(settings: CallerAuthSettings, fetch: FetchLike): Authenticator {
  if (!settings.enabled) return { enabled: false, authenticate: async () => OPEN_CALLER, known: () => OPEN_CALLER, signInOwner: async () => null };
  const keys = new ApiKeys(settings.apiKeys);
  const jwt = settings.jwt ? new JwtVerifier(settings.jwt, fetch) : null;
  return {
    enabled: true,
    known(authorization, extraAudiences = []) {
      const credential = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
      if (!credential) return null;
      // One hash serves both: the keys compare it, the verified tokens are keyed by it.
      const digest = credentialDigest(credential);
      return keys.match(credential, digest) ?? (jwt && JWT_SHAPE.test(credential) ? jwt.cached(credential, extraAudiences, digest) : null);
    },
    async authenticate(authorization, extraAudiences = []) {
      if (!authorization) throw new Unauthenticated(false, 'this request needs a Bearer credential');
      const credential = BEARER.exec(authorization)?.[1];
      if (!credential) throw new Unauthenticated(true, 'the Authorization header is not a single Bearer credential');
      const keyCaller = keys.match(credential);
      if (keyCaller) return keyCaller;
      if (jwt && JWT_SHAPE.test(credential)) return jwt.verify(credential, extraAudiences);
      throw new Unauthenticated(true, 'the credential is not valid');
    },
    async signInOwner(idToken) {
      return jwt?.issues(idToken) ? jwt.signInOwner(idToken) : null;
    },
  };
}
