// The OAuth steps as Temporal activities: each opens the secrets it needs, runs one step of
// activities/oauth, and seals what it returns, so that only ciphertext reaches history.
import { consentPageUrl } from '../contract/oauth-client-metadata';
import { FAILURE } from '../contract/failures';
import type { AuthChallenge } from '../contract/www-authenticate';
import { ApplicationFailure, Context, heartbeat } from '@temporalio/activity';
import type { Metrics } from '../platform/metrics';
import { secretContext, type Ciphertext, type SecretBox } from '../platform/secret-box';
import type { Preset } from '../contract/schemas';
import { configuredPreset } from './configured-preset';
import { withTypedFailures } from './typed-failure';
import type { AddressPolicy } from '../platform/address-guard';
import { clearTextRefusal, urlTokenTransportRefusal } from '../platform/token-transport';
import type { OAuthStore } from '../store/oauth-store';
import { hashState } from '../store/oauth-store';

import type { OAuthContext, PendingAuthorization, SealedTokens } from './oauth/oauth-state';

import {
  InsecureUrlError, checkAuthorizationServerBinding, discoverAuthorization, exchangeCode, oauthCallbackUrl, probeForChallenge, refreshTokens,
  resolveClientIdentity, revokeTokens, selectScope, startAuthorization,
  type OAuthHttp, type TokenSet, type RegisteredClient, type ClientIdentity,
} from './oauth';

export interface OAuthActivityDeps {
  http: OAuthHttp;
  secrets: SecretBox;
  oauthStore: OAuthStore;
  baseUrl: string;
  authTimeoutSeconds: number;
  /** The presets configured on this worker: a preset's client credentials are taken from here. */
  presets: readonly Preset[];
  /** Decides where the flow's token may travel (platform/token-transport.ts). */
  addressPolicy: AddressPolicy;
  /** Where refreshes and their lag are counted. */
  metrics?: Pick<Metrics, 'tokenRefreshes' | 'tokenRefreshLag'>;
  /** How long the MCP handshake probe may take (CONNECTOR__CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
}

export type BeginResult =
  /** The server answered without authorization, at this MCP revision. */
  | { kind: 'open'; protocolVersion: string | null }
  | {
    kind: 'authorize'; authorizationUrl: string; expiresAt: string; pending: PendingAuthorization;
    /** SEP-2352: the server now names another authorization server than the connector's last grant came from. */
    authorizationServerChanged?: { from: string; to: string } | null;
  };

export function createOAuthActivities(deps: OAuthActivityDeps) {
  const seal = (id: string, purpose: string, value: string) => deps.secrets.seal(value, secretContext(id, purpose));
  const open = (id: string, purpose: string, value: Ciphertext) => deps.secrets.open(value, secretContext(id, purpose));
  const redirectUri = oauthCallbackUrl(deps.baseUrl);

  const plainClient = (id: string, client: OAuthContext['client']): ClientIdentity => ({
    ...client,
    clientSecret: client.presetUrl !== undefined ? presetSecret(client.presetUrl)
      : client.clientSecret ? open(id, 'oauth_client_secret', client.clientSecret) : null,
  });
  const presetSecret = (url: string) => configuredPreset(deps.presets, url).client_secret ?? null;
  /** The preset's client, or null when the preset no longer names one (then found as without). */
  const presetClient = (url: string) => {
    const preset = configuredPreset(deps.presets, url);
    return preset.client_id ? { clientId: preset.client_id, clientSecret: preset.client_secret ?? null } : null;
  };

  const sealTokens = (id: string, tokens: TokenSet): SealedTokens => ({
    accessToken: seal(id, 'access_token', tokens.accessToken),
    refreshToken: tokens.refreshToken ? seal(id, 'refresh_token', tokens.refreshToken) : null,
    expiresAt: tokens.expiresAt,
    scope: tokens.scope,
  });

  return {
    /** Probes the server; on a challenge, discovers, identifies the client and builds the authorization URL. */
    async oauthBegin(input: {
      connectorId: string; url: string; given: { clientId: string; clientSecret: Ciphertext | null } | null;
      redirectUrl: string | null; extraScopes: string[];
      /** The URL of the preset whose client credentials to use (when `given` is null). */
      presetClient?: string | null;
      /** The server asked for authorization through the proxy earlier; it wins over an open `initialize`. */
      knownChallenge?: AuthChallenge | null;
      /** SEP-2352: the issuer of the connector's last grant (null: none yet). */
      boundIssuer: string | null;
    }): Promise<BeginResult> {
      return withTypedFailures(async () => {
        const id = input.connectorId;
        const probe = await probeForChallenge({ serverUrl: input.url, timeoutMs: deps.connectTimeoutMs }, deps.http);
        const known = input.knownChallenge ? { ...input.knownChallenge, error: null, errorDescription: null } : null;
        if (probe.kind === 'accepted' && !known) return { kind: 'open', protocolVersion: probe.protocolVersion };
        const challenge = (probe.kind === 'accepted' ? null : probe.challenge) ?? known;
        // The flow ends in a token for this server: refuse it before the user is sent anywhere.
        const clearText = await urlTokenTransportRefusal(new URL(input.url), deps.addressPolicy);
        if (clearText) throw new InsecureUrlError(clearTextRefusal(clearText));
        const discovery = await discoverAuthorization({ serverUrl: input.url, challenge }, deps.http);
        const as = discovery.authorizationServer.metadata;
        const fromPreset = !input.given && input.presetClient ? presetClient(input.presetClient) : null;
        const binding = checkAuthorizationServerBinding({ boundIssuer: input.boundIssuer, issuer: as.issuer, givenCredentials: Boolean(input.given || fromPreset) });
        const given = input.given
          ? { clientId: input.given.clientId, clientSecret: input.given.clientSecret ? open(id, 'client_secret', input.given.clientSecret) : null }
          : fromPreset;
        const stored = given ? null : await deps.oauthStore.registration(as.issuer, redirectUri);
        const { identity, newRegistration } = await resolveClientIdentity({
          authorizationServer: as, given, baseUrl: deps.baseUrl, redirectUri,
          registration: stored ? unsealRegistration(stored, deps.secrets) : null,
        }, deps.http);
        if (newRegistration) await deps.oauthStore.saveRegistration(sealRegistration(newRegistration, deps.secrets));
        const scope = unionScopes(selectScope({
          challengeScope: discovery.challengeScope,
          resourceScopes: discovery.resourceMetadata?.scopes_supported ?? null,
          authorizationServerScopes: as.scopes_supported ?? null,
        }), [...input.extraScopes, ...(known?.scope?.split(' ') ?? [])]);
        const start = await startAuthorization({ authorizationServer: as, client: identity, redirectUri, resource: discovery.resource, scope }, deps.http);
        const expiresAt = new Date(Date.now() + deps.authTimeoutSeconds * 1000);
        const stateHash = hashState(start.state);
        await deps.oauthStore.rememberState({
          _id: stateHash, connector_id: id, redirect_url: input.redirectUrl, expires_at: expiresAt,
          authorization_url: deps.secrets.seal(start.authorizationUrl, `consent/${stateHash}`),
        });
        const context: OAuthContext = {
          authorizationServer: as, resource: discovery.resource, redirectUri, scope: start.scope,
          client: fromPreset && input.presetClient
            ? { ...identity, clientSecret: null, presetUrl: input.presetClient }
            : { ...identity, clientSecret: identity.clientSecret ? seal(id, 'oauth_client_secret', identity.clientSecret) : null },
        };
        return {
          authorizationServerChanged: binding.changed ? { from: input.boundIssuer!, to: as.issuer } : null,
          // The user is sent to the service's own consent page, which names the server and the
          // connector's owner and binds the flow to the browser before it goes on to this server.
          kind: 'authorize', authorizationUrl: consentPageUrl(deps.baseUrl, stateHash), expiresAt: expiresAt.toISOString(),
          pending: {
            stateHash, state: seal(id, 'oauth_state', start.state), codeVerifier: seal(id, 'code_verifier', start.codeVerifier),
            redirectUrl: input.redirectUrl, context,
          },
        };
      });
    },

    /** Checks the callback (iss, state, error) and exchanges the code. */
    async oauthComplete(input: { connectorId: string; pending: PendingAuthorization; callback: Ciphertext }): Promise<SealedTokens> {
      return withTypedFailures(async () => {
        const id = input.connectorId;
        const { context } = input.pending;
        const tokens = await exchangeCode({
          authorizationServer: context.authorizationServer, client: plainClient(id, context.client),
          callback: open(id, 'oauth_callback', input.callback), expectedState: open(id, 'oauth_state', input.pending.state),
          codeVerifier: open(id, 'code_verifier', input.pending.codeVerifier), redirectUri: context.redirectUri, resource: context.resource,
        }, deps.http);
        return sealTokens(id, tokens);
      });
    },

    /** `scheduledAt` (epoch ms): when the refresh loop meant it to run; absent for a refresh on a 401. */
    async oauthRefresh(input: { connectorId: string; context: OAuthContext; refreshToken: Ciphertext; scheduledAt?: number }): Promise<SealedTokens> {
      // The first attempt's delay is the schedule's lag; a retry's would add the retry policy's backoff.
      if (input.scheduledAt !== undefined && Context.current().info.attempt === 1) {
        deps.metrics?.tokenRefreshLag.observe(Math.max(0, Date.now() - input.scheduledAt) / 1000);
      }
      return countedRefresh(deps.metrics, () => withTypedFailures(async () => {
        heartbeat();
        const id = input.connectorId;
        const previous = open(id, 'refresh_token', input.refreshToken);
        const tokens = await refreshTokens({
          authorizationServer: input.context.authorizationServer, client: plainClient(id, input.context.client),
          refreshToken: previous, resource: input.context.resource,
        }, deps.http);
        // A server that does not rotate keeps the previous refresh token valid.
        return sealTokens(id, { ...tokens, refreshToken: tokens.refreshToken ?? previous });
      }));
    },

    async oauthRevoke(input: { connectorId: string; context: OAuthContext; accessToken: Ciphertext | null; refreshToken: Ciphertext | null }): Promise<void> {
      const id = input.connectorId;
      await withTypedFailures(() => revokeTokens({
        authorizationServer: input.context.authorizationServer, client: plainClient(id, input.context.client),
        accessToken: input.accessToken ? open(id, 'access_token', input.accessToken) : null,
        refreshToken: input.refreshToken ? open(id, 'refresh_token', input.refreshToken) : null,
      }, deps.http));
    },
  };
}

/** Counts a refresh by its outcome: `success`, `invalid_grant` (connect again), `transient` (retried) or `failed`. */
async function countedRefresh<T>(metrics: OAuthActivityDeps['metrics'], refresh: () => Promise<T>): Promise<T> {
  try {
    const result = await refresh();
    metrics?.tokenRefreshes.inc({ outcome: 'success' });
    return result;
  } catch (err) {
    const type = err instanceof ApplicationFailure ? err.type : null;
    const outcome = type === FAILURE.invalidGrant ? 'invalid_grant' : type === FAILURE.transient ? 'transient' : 'failed';
    metrics?.tokenRefreshes.inc({ outcome });
    throw err;
  }
}

function unionScopes(scope: string | null, extra: string[]): string | null {
  const all = new Set([...(scope ? scope.split(' ') : []), ...extra].filter(Boolean));
  return all.size ? [...all].join(' ') : null;
}

function sealRegistration(r: RegisteredClient, secrets: SecretBox) {
  return {
    issuer: r.issuer, client_id: r.clientId, redirect_uri: r.redirectUri, auth_method: r.authMethod,
    client_secret: r.clientSecret ? secrets.seal(r.clientSecret, `registration/${r.issuer}`) : null,
    client_secret_expires_at: r.clientSecretExpiresAt,
  };
}

function unsealRegistration(r: { issuer: string; client_id: string; client_secret: Ciphertext | null; client_secret_expires_at: number | null; auth_method: string; redirect_uri: string }, secrets: SecretBox): RegisteredClient {
  return {
    issuer: r.issuer, clientId: r.client_id, redirectUri: r.redirect_uri, authMethod: r.auth_method as RegisteredClient['authMethod'],
    clientSecret: r.client_secret ? secrets.open(r.client_secret, `registration/${r.issuer}`) : null,
    clientSecretExpiresAt: r.client_secret_expires_at,
  };
}
