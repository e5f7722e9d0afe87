// Schemas for the third-party documents the OAuth steps read: loose objects (servers add their
// own fields), strict about the fields this service relies on.
import { z } from 'zod';
import type { AuthorizationServer } from 'oauth4webapi';

/** An absolute http(s) URL; other schemes (javascript:, data:, file:) are refused. */
export const HttpUrlSchema = z.string().refine((value) => {
  const url = URL.parse(value);
  return url !== null && (url.protocol === 'https:' || url.protocol === 'http:') && !url.hash;
}, 'must be an absolute http(s) URL without a fragment');

const ScopeListSchema = z.array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be a scope token'));

/** RFC 9728 section 2, as MCP 2025-11-25 requires it (at least one authorization server). */
export const ProtectedResourceMetadataSchema = z.looseObject({
  resource: HttpUrlSchema,
  authorization_servers: z.array(HttpUrlSchema).min(1, 'must name at least one authorization server'),
  scopes_supported: ScopeListSchema.optional(),
  bearer_methods_supported: z.array(z.string()).optional(),
  resource_name: z.string().optional(),
});
export type ProtectedResourceMetadata = z.infer<typeof ProtectedResourceMetadataSchema>;

/** RFC 8414 section 2 / OpenID Connect Discovery 1.0 section 3: the fields the client steps use. */
export const AuthorizationServerMetadataSchema = z.looseObject({
  issuer: HttpUrlSchema,
  authorization_endpoint: HttpUrlSchema,
  token_endpoint: HttpUrlSchema,
  registration_endpoint: HttpUrlSchema.optional(),
  revocation_endpoint: HttpUrlSchema.optional(),
  scopes_supported: ScopeListSchema.optional(),
  response_types_supported: z.array(z.string()).optional(),
  grant_types_supported: z.array(z.string()).optional(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  token_endpoint_auth_signing_alg_values_supported: z.array(z.string()).optional(),
  revocation_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  authorization_response_iss_parameter_supported: z.boolean().optional(),
  client_id_metadata_document_supported: z.boolean().optional(),
  /**
   * RFC 9449 section 5.1: the algorithms its DPoP proofs may use; present: the server binds tokens
   * to a key. Read leniently: a malformed list only means no proofs are offered.
   */
  dpop_signing_alg_values_supported: z.preprocess(
    (value) => (Array.isArray(value) ? value.filter((alg) => typeof alg === 'string') : undefined),
    z.array(z.string()).optional(),
  ),
});
export type AuthorizationServerMetadata = z.infer<typeof AuthorizationServerMetadataSchema>;

/**
 * A number of seconds where one is meant: a number or a numeric string is taken, anything else
 * counts as absent. For fields that inform the client and guard nothing.
 */
const LenientSeconds = z.preprocess((value) => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}, z.number().optional());

/**
 * RFC 7591 section 3.2.1: a successful registration answer. `client_secret_expires_at` is
 * required there whenever a secret is issued, but many servers leave it out; absent or malformed,
 * it is read as "does not expire" (the secret is used until the server refuses it).
 */
export const RegistrationResponseSchema = z.looseObject({
  client_id: z.string().min(1),
  client_secret: z.string().min(1).optional(),
  client_secret_expires_at: LenientSeconds,
  client_id_issued_at: LenientSeconds,
  token_endpoint_auth_method: z.string().optional(),
  redirect_uris: z.array(z.string()).optional(),
});

/** An RFC 6749 `error` code as this service relays it: printable ASCII without `"` or `\`. */
export const OAUTH_ERROR_CODE = /^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/;

/** RFC 6749 section 5.2 / RFC 7591 section 3.2.2: an error answer. */
export const OAuthErrorBodySchema = z.looseObject({
  error: z.string().regex(OAUTH_ERROR_CODE),
  error_description: z.string().optional(),
});

/** Formats zod issues as one sentence naming the fields, for error details. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(document)'} ${issue.message}`)
    .join('; ');
}

/** The metadata as oauth4webapi's request functions take it (the same JSON, its own type). */
export function asOAuthServer(metadata: AuthorizationServerMetadata): AuthorizationServer {
  return metadata as unknown as AuthorizationServer;
}
