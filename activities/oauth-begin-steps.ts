// The first steps of an authorization, one activity each (activities/oauth/README.md, steps 1 to
// 4), so that a retry repeats only the step that failed and the workflow's history names it:
// the unauthenticated probe, discovery, the client's identity at the authorization server found
// (with the registration it may make and store), and the authorization URL (with the state it
// stores). The workflow chains them (workflows/oauth-begin.ts); only ciphertext comes back.
import { consentPageUrl } from '../contract/oauth-client-metadata';
import type { AuthChallenge } from '../contract/www-authenticate';
import type { Ciphertext } from '../platform/secret-box';
import { clearTextRefusal, urlTokenTransportRefusal } from '../platform/token-transport';
import { hashState } from '../store/oauth-store';
import { withTypedFailures } from './typed-failure';
import { openHeaders } from '../platform/upstream-headers';
import type { SealedHeader } from '../contract/upstream-inputs';
import type { OAuthActivityDeps } from './oauth-activity-deps';
import type { OAuthSecrets } from './oauth-secrets';
import type { OAuthContext, PendingAuthorization } from './oauth/oauth-state';
import {
  InsecureUrlError, checkAuthorizationServerBinding, discoverAuthorization, oauthCallbackUrl, probeForChallenge,
  resolveClientIdentity, selectScope, startAuthorization, type AuthorizationServerMetadata,
} from './oauth';

export type ProbeStep =
  /** The server answered without authorization, at this MCP revision. */
  | { kind: 'open'; protocolVersion: string }
  /** The server asked for authorization; its Bearer challenge, when it sent one. */
  | { kind: 'challenge'; challenge: AuthChallenge | null };

export interface DiscoveryStep {
  authorizationServer: AuthorizationServerMetadata;
  /** The RFC 8707 resource. */
  resource: string;
  challengeScope: string | null;
  resourceScopes: string[] | null;
}

export interface ClientStep {
  client: OAuthContext['client'];
  /** SEP-2352: the server now names another authorization server than the connector's last grant came from. */
  authorizationServerChanged: { from: string; to: string } | null;
}

export interface AuthorizeStep {
  authorizationUrl: string;
  expiresAt: string;
  pending: PendingAuthorization;
}

/** The grants that send a user to an authorization endpoint (PKCE applies) and those that do not. */
export type GrantKind = 'authorization_code' | 'client_credentials' | 'jwt_bearer';

export function createOAuthBeginSteps(deps: OAuthActivityDeps, secrets: OAuthSecrets) {
  const redirectUri = oauthCallbackUrl(deps.baseUrl);
  return {
    /** Step 1: the handshake any client makes, without credentials. */
    async oauthProbe(input: { connectorId: string; url: string; headers?: SealedHeader[]; transport?: 'sse' }): Promise<ProbeStep> {
      return withTypedFailures(async () => {
        const headers = openHeaders(deps.secrets, input.connectorId, input.headers);
        const probe = await probeForChallenge({ serverUrl: input.url, timeoutMs: deps.connectTimeoutMs, headers, transport: input.transport }, deps.http);
        if (probe.kind === 'accepted') return { kind: 'open', protocolVersion: probe.protocolVersion };
        const challenge = probe.challenge && { resourceMetadata: probe.challenge.resourceMetadata, scope: probe.challenge.scope };
        return { kind: 'challenge', challenge };
      });
    },

    /** Step 2: protected-resource and authorization-server metadata. */
    async oauthDiscover(input: { connectorId: string; url: string; challenge: AuthChallenge | null; grant?: GrantKind }): Promise<DiscoveryStep> {
      return withTypedFailures(async () => {
        // The flow ends in a token for this server: refuse it before anyone is sent anywhere.
        const clearText = await urlTokenTransportRefusal(new URL(input.url), deps.addressPolicy);
        if (clearText) throw new InsecureUrlError(clearTextRefusal(clearText));
        const challenge = input.challenge && { ...input.challenge, error: null, errorDescription: null };
        const found = await discoverAuthorization({ serverUrl: input.url, challenge, grant: input.grant ?? 'authorization_code' }, deps.http);
        return {
          authorizationServer: found.authorizationServer.metadata, resource: found.resource,
          challengeScope: found.challengeScope, resourceScopes: found.resourceMetadata?.scopes_supported ?? null,
        };
      });
    },

    /** Step 3: who the service is there: given, the preset's, a metadata document, a stored or a new registration. */
    async oauthIdentifyClient(input: {
      connectorId: string; authorizationServer: AuthorizationServerMetadata;
      given: { clientId: string; clientSecret: Ciphertext | null } | null;
      /** The URL of the preset whose client credentials to use (when `given` is null). */
      presetClient: string | null;
      /** SEP-2352: the issuer of the connector's last grant (null: none yet). */
      boundIssuer: string | null;
    }): Promise<ClientStep> {
      return withTypedFailures(async () => {
        const as = input.authorizationServer;
        const fromPreset = !input.given && input.presetClient ? secrets.presetClient(input.presetClient) : null;
        const binding = checkAuthorizationServerBinding({ boundIssuer: input.boundIssuer, issuer: as.issuer, givenCredentials: Boolean(input.given || fromPreset) });
        const given = input.given
          ? { clientId: input.given.clientId, clientSecret: input.given.clientSecret ? secrets.open(input.connectorId, 'client_secret', input.given.clientSecret) : null }
          : fromPreset;
        const stored = given ? null : await deps.oauthStore.registration(as.issuer, redirectUri);
        const { identity, newRegistration } = await resolveClientIdentity({
          authorizationServer: as, given, baseUrl: deps.baseUrl, redirectUri,
          registration: stored ? secrets.openRegistration(stored) : null,
        }, deps.http);
        if (newRegistration) await deps.oauthStore.saveRegistration(secrets.sealRegistration(newRegistration));
        return {
          client: secrets.sealClient(input.connectorId, identity, fromPreset && input.presetClient ? input.presetClient : null),
          authorizationServerChanged: binding.changed ? { from: input.boundIssuer!, to: as.issuer } : null,
        };
      });
    },

    /** Step 4: the scope, the authorization URL and its state, kept for the consent page and the callback. */
    async oauthAuthorize(input: {
      connectorId: string; authorizationServer: AuthorizationServerMetadata; client: OAuthContext['client']; resource: string;
      scopes: { challenge: string | null; resource: string[] | null; extra: string[] };
      redirectUrl: string | null;
    }): Promise<AuthorizeStep> {
      return withTypedFailures(async () => {
        const id = input.connectorId;
        const as = input.authorizationServer;
        const scope = unionScopes(selectScope({
          challengeScope: input.scopes.challenge, resourceScopes: input.scopes.resource, authorizationServerScopes: as.scopes_supported ?? null,
        }), input.scopes.extra);
        // The authorization URL names the client; its secret is not needed for it.
        const client = { ...input.client, clientSecret: null };
        const start = await startAuthorization({ authorizationServer: as, client, redirectUri, resource: input.resource, scope }, deps.http);
        const expiresAt = new Date(Date.now() + deps.authTimeoutSeconds * 1000);
        const stateHash = hashState(start.state);
        await deps.oauthStore.rememberState({
          _id: stateHash, connector_id: id, redirect_url: input.redirectUrl, expires_at: expiresAt,
          authorization_url: deps.secrets.seal(start.authorizationUrl, `consent/${stateHash}`),
        });
        const context: OAuthContext = {
          authorizationServer: as, resource: input.resource, redirectUri, scope: start.scope, client: input.client, ...secrets.newDpopKey(id, as),
        };
        return {
          // The user is sent to the service's own consent page, which names the server and the
          // connector's owner and binds the flow to the browser before it goes on to this server.
          authorizationUrl: consentPageUrl(deps.baseUrl, stateHash), expiresAt: expiresAt.toISOString(),
          pending: {
            stateHash, state: secrets.seal(id, 'oauth_state', start.state), codeVerifier: secrets.seal(id, 'code_verifier', start.codeVerifier),
            redirectUrl: input.redirectUrl, context,
          },
        };
      });
    },
  };
}

function unionScopes(scope: string | null, extra: string[]): string | null {
  const all = new Set([...(scope ? scope.split(' ') : []), ...extra].filter(Boolean));
  return all.size ? [...all].join(' ') : null;
}
