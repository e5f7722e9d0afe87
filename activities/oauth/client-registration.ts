// Dynamic Client Registration (RFC 7591) with the service's callback as the one redirect URI,
// as a `web` application (OIDC Registration `application_type`, MCP 2026-07-28 SEP-837): the
// service is a server-side client behind its BASE_URL, and an OpenID server that hears no type
// assumes `web` anyway; saying it keeps a server from guessing `native` from a loopback BASE_URL.
// The caller stores the result per issuer (sealed) and passes it back, so that the service
// registers once per authorization server rather than once per connect.
//
// The answer is read here rather than by oauth4webapi, which refuses a registration that lacks
// `client_secret_expires_at` or comes with 200 instead of 201: both common, neither of any
// security meaning (README: leniencies).
import { inStep, refusedByServer, statusError } from './classify-error';
import { NoClientIdentityError, TokenRequiredError, UpstreamResponseError } from './errors';
import { ASSUMED_ENDPOINTS } from './authorization-server-metadata';
import { assertSecureUrl, readJsonLimited, type OAuthHttp } from './http';
import { describeIssues, OAuthErrorBodySchema, RegistrationResponseSchema, type AuthorizationServerMetadata } from './schemas';
import { chooseTokenAuthMethod, registrationAuthMethod, type TokenAuthMethod } from './token-auth-method';
import { APPLICATION_TYPE, DEFAULT_CLIENT_NAME } from '../../contract/oauth-client-metadata';

export interface RegisteredClient {
  issuer: string;
  clientId: string;
  /** Plaintext; the caller seals it. */
  clientSecret: string | null;
  /** Seconds since the epoch; 0 or null when it does not expire. */
  clientSecretExpiresAt: number | null;
  authMethod: TokenAuthMethod;
  redirectUri: string;
}

export async function registerClient(
  input: { authorizationServer: AuthorizationServerMetadata; redirectUri: string; clientName?: string },
  http: OAuthHttp,
): Promise<RegisteredClient> {
  const as = input.authorizationServer;
  if (!as.registration_endpoint) throw new NoClientIdentityError(`the authorization server ${as.issuer} does not offer client registration`);
  assertSecureUrl(as.registration_endpoint, http, 'registration endpoint');
  const requested = registrationAuthMethod(as);
  const step = `registering a client at ${as.issuer}`;
  const body = await inStep(step, http.logger, async () => {
    const response = await http.fetch(as.registration_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        client_name: input.clientName ?? DEFAULT_CLIENT_NAME,
        application_type: APPLICATION_TYPE,
        redirect_uris: [input.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: requested,
      }),
      redirect: 'manual',
    });
    return readRegistrationAnswer(response, step);
  }).catch((err: unknown) => {
    throw as[ASSUMED_ENDPOINTS] === true && err instanceof UpstreamResponseError ? tokenRequired(as.issuer, err) : err;
  });
  const parsed = RegistrationResponseSchema.safeParse(body);
  if (!parsed.success) throw new UpstreamResponseError(`the registration answer of ${as.issuer} is not usable: ${describeIssues(parsed.error)}`);
  const registered = parsed.data;
  if (registered.redirect_uris && !registered.redirect_uris.includes(input.redirectUri)) {
    throw new UpstreamResponseError(`${as.issuer} registered the client without the redirect URI ${input.redirectUri}`);
  }
  const clientSecret = registered.client_secret ?? null;
  const method = registered.token_endpoint_auth_method ?? (clientSecret ? 'client_secret_basic' : 'none');
  return {
    issuer: as.issuer,
    clientId: registered.client_id,
    clientSecret,
    clientSecretExpiresAt: registered.client_secret_expires_at || null,
    authMethod: chooseTokenAuthMethod(as, { hasSecret: clientSecret !== null, registered: method }),
    redirectUri: input.redirectUri,
  };
}

/**
 * A server that refused the unauthenticated probe, publishes no OAuth metadata, and refuses a
 * registration at the endpoint 2025-03-26 would have it at: it takes a token the user already has.
 */
function tokenRequired(origin: string, refusal: UpstreamResponseError): TokenRequiredError {
  return new TokenRequiredError(
    `the MCP server at ${origin} needs a credential and offers no OAuth sign-in (it publishes no authorization metadata; ${refusal.message}): connect it with a token it accepts (access_token)`,
  );
}

/** The answer's JSON: 200 and 201 are both taken; an RFC 7591 error body is relayed by its code. */
async function readRegistrationAnswer(response: Response, step: string): Promise<unknown> {
  if (response.status === 200 || response.status === 201) return readJsonLimited(response);
  const body = await readJsonLimited(response).catch(() => null);
  const error = OAuthErrorBodySchema.safeParse(body);
  if (response.status === 400 && error.success) throw refusedByServer(step, error.data.error, error.data.error_description);
  throw statusError(response.status, step);
}

/**
 * Whether a stored registration can still be used with `as` for `redirectUri` at `now` (ms). One
 * whose method the server no longer lists is made again: the server at that issuer has changed (a
 * redeploy with a new client store, a new policy), and a client it may not know, authenticating
 * in a way it no longer takes, costs a failed sign-in where a new registration costs one request.
 */
export function registrationUsable(registration: RegisteredClient, as: AuthorizationServerMetadata, redirectUri: string, now: number): boolean {
  if (registration.issuer !== as.issuer || registration.redirectUri !== redirectUri) return false;
  const listed = as.token_endpoint_auth_methods_supported;
  if (listed && !listed.includes(registration.authMethod)) return false;
  const expiresAt = registration.clientSecretExpiresAt;
  return !expiresAt || expiresAt * 1000 > now + 60_000;
}
