// Shared steps for the OAuth tests: the client steps chained the way the connector workflow will
// chain them, against the real fixtures.
import { createGuardedFetch } from '../../platform/guarded-fetch';
import { probeForChallenge } from '../../activities/oauth/auth-probe';
import { discoverAuthorization, type AuthorizationDiscovery } from '../../activities/oauth/discover';
import { resolveClientIdentity, type ResolveClientInput, type ResolvedClient } from '../../activities/oauth/client-identity';
import { selectScope } from '../../activities/oauth/scope';
import { startAuthorization, type AuthorizationStart } from '../../activities/oauth/authorization-request';
import { exchangeCode } from '../../activities/oauth/code-exchange';
import type { OAuthHttp } from '../../activities/oauth/http';
import type { TokenSet } from '../../activities/oauth/token-set';
import { createConsentAgent } from '../fixtures/oauth/consent-agent';
import type { createOAuthActivities } from '../../activities/oauth-activities';
import type { Ciphertext } from '../../platform/secret-box';

/** The service's base URL in tests; never contacted (callbacks are delivered by hand). */
export const BASE_URL = 'http://127.0.0.1:9/';
export const REDIRECT_URI = 'http://127.0.0.1:9/api/v1/connectors/oauth/callback';

/** Loopback is where every fixture lives, so the test policy allows private networks. */
export function testHttp(): OAuthHttp & { close(): Promise<void> } {
  const fetch = createGuardedFetch({ blockPrivateNetworks: false }, { timeoutMs: 10_000 });
  return { fetch, close: () => fetch.close() };
}

export interface RecordedRequest {
  url: string;
  method: string;
  headers: Headers;
  body: string | null;
}

/** The test fetch, keeping a note of every request so tests can see what went over the wire. */
export function recordingHttp(http: OAuthHttp): OAuthHttp & { requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  return {
    requests,
    fetch: (url, init) => {
      const body = init?.body;
      requests.push({
        url: String(url),
        method: init?.method ?? 'GET',
        headers: new Headers(init?.headers),
        body: typeof body === 'string' || body instanceof URLSearchParams ? String(body) : null,
      });
      return http.fetch(url, init);
    },
  };
}

export async function discover(serverUrl: string, http: OAuthHttp): Promise<AuthorizationDiscovery> {
  const probe = await probeForChallenge({ serverUrl }, http);
  if (probe.kind !== 'unauthorized') throw new Error(`expected a 401 from ${serverUrl}, got ${probe.kind}`);
  return discoverAuthorization({ serverUrl, challenge: probe.challenge }, http);
}

export interface AuthorizedFlow {
  discovery: AuthorizationDiscovery;
  client: ResolvedClient;
  start: AuthorizationStart;
  callback: URL;
  tokens: TokenSet;
}

/** Probe, discover, pick a client, authorize through the consent pages, exchange the code. */
export async function authorize(
  serverUrl: string,
  http: OAuthHttp,
  identity: Partial<Pick<ResolveClientInput, 'given' | 'registration' | 'baseUrl' | 'redirectUri'>> = {},
  /** The code is exchanged with a DPoP proof made with this key (JWK, JSON). */
  dpopKey?: string,
): Promise<AuthorizedFlow> {
  const consented = await consent(serverUrl, http, identity);
  const { discovery, start, callback, redirectUri } = consented;
  const tokens = await exchangeCode({
    authorizationServer: discovery.authorizationServer.metadata, client: consented.client.identity, callback: callback.href, expectedState: start.state,
    codeVerifier: start.codeVerifier, redirectUri, resource: discovery.resource, dpopKey,
  }, http);
  return { ...consented, tokens };
}

/** Probe, discover, pick a client, authorize through the consent pages: the callback, its code not yet exchanged. */
export async function consent(
  serverUrl: string,
  http: OAuthHttp,
  identity: Partial<Pick<ResolveClientInput, 'given' | 'registration' | 'baseUrl' | 'redirectUri'>> = {},
) {
  const discovery = await discover(serverUrl, http);
  const redirectUri = identity.redirectUri ?? REDIRECT_URI;
  const as = discovery.authorizationServer.metadata;
  const client = await resolveClientIdentity({
    authorizationServer: as, given: identity.given, registration: identity.registration,
    baseUrl: identity.baseUrl ?? BASE_URL, redirectUri,
  }, http);
  const scope = selectScope({
    challengeScope: discovery.challengeScope,
    resourceScopes: discovery.resourceMetadata?.scopes_supported,
    authorizationServerScopes: as.scopes_supported,
  });
  const start = await startAuthorization({ authorizationServer: as, client: client.identity, redirectUri, resource: discovery.resource, scope });
  const callback = await createConsentAgent().authorize(start.authorizationUrl, { redirectUri });
  return { discovery, client, start, callback, redirectUri };
}

type BeginActivities = Pick<ReturnType<typeof createOAuthActivities>, 'oauthProbe' | 'oauthDiscover' | 'oauthIdentifyClient' | 'oauthAuthorize'>;

/** The four first activities of an authorization chained as workflows/oauth-begin.ts chains them. */
export async function beginWithActivities(activities: BeginActivities, input: {
  connectorId: string; url: string; given: { clientId: string; clientSecret: Ciphertext | null } | null; boundIssuer: string | null;
}) {
  const { connectorId, url } = input;
  const probed = await activities.oauthProbe({ connectorId, url });
  if (probed.kind === 'open') return { kind: 'open' as const };
  const found = await activities.oauthDiscover({ connectorId, url, challenge: probed.challenge });
  const identified = await activities.oauthIdentifyClient({
    connectorId, authorizationServer: found.authorizationServer, given: input.given, presetClient: null, boundIssuer: input.boundIssuer,
  });
  const authorization = await activities.oauthAuthorize({
    connectorId, authorizationServer: found.authorizationServer, client: identified.client, resource: found.resource,
    scopes: { challenge: found.challengeScope, resource: found.resourceScopes, extra: [] }, redirectUrl: null,
  });
  return { kind: 'authorize' as const, ...authorization, authorizationServerChanged: identified.authorizationServerChanged };
}
