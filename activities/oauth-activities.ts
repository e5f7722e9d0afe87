// The OAuth steps as Temporal activities, one per step: each opens the secrets it needs, runs one
// step of activities/oauth, and seals what it returns, so that only ciphertext reaches history.
import type { InTaskCall } from './in-task-admission';
import type { Ciphertext } from '../platform/secret-box';
import { withTypedFailures } from './typed-failure';
import type { ClientCredentialsGrant, OAuthContext, PendingAuthorization, SealedTokens } from './oauth/oauth-state';
import { OAuthSecrets } from './oauth-secrets';
import { createOAuthBeginSteps } from './oauth-begin-steps';
import type { OAuthActivityDeps } from './oauth-activity-deps';
import { createEnterpriseManagedSteps } from './enterprise-managed-steps';
import { createWorkloadIdentitySteps } from './workload-identity-steps';
import { measuredRenewal, scheduleLag } from './refresh-metrics';
import { createRefreshOnce } from './refresh-once';
import { presentOnce } from './present-once';
import {
  clientCredentialsAuthMethod, exchangeCode, oauthCallbackUrl, requestClientCredentialsToken, revokeTokens, selectScope,
  type AuthorizationServerMetadata,
} from './oauth';

export function createOAuthActivities(deps: OAuthActivityDeps) {
  const secrets = new OAuthSecrets(deps.secrets, deps.presets, deps.upstreamDpop ?? true);
  const refreshGrant = createRefreshOnce(deps, secrets);

  const clientCredentialsToken = async (id: string, context: OAuthContext): Promise<SealedTokens> => {
    const tokens = await requestClientCredentialsToken({
      authorizationServer: context.authorizationServer, client: secrets.plainClient(id, context.client), resource: context.resource, scope: context.scope,
      dpopKey: secrets.dpopKey(id, context),
    }, deps.http);
    return secrets.sealTokens(id, { ...tokens, refreshToken: null }); // a refresh token would be of no use: the credentials ask again
  };

  const exchange = async (id: string, pending: PendingAuthorization, callback: string): Promise<SealedTokens> => {
    const { context } = pending;
    const tokens = await exchangeCode({
      authorizationServer: context.authorizationServer, client: secrets.plainClient(id, context.client),
      callback, expectedState: secrets.open(id, 'oauth_state', pending.state),
      codeVerifier: secrets.open(id, 'code_verifier', pending.codeVerifier), redirectUri: context.redirectUri, resource: context.resource,
      dpopKey: secrets.dpopKey(id, context),
    }, deps.http);
    return secrets.sealTokens(id, tokens);
  };

  return {
    ...createOAuthBeginSteps(deps, secrets),
    ...createEnterpriseManagedSteps(deps, secrets),
    ...createWorkloadIdentitySteps(deps, secrets),

    /**
     * Checks the callback (iss, state, error) and exchanges the code, once: a run again after a
     * lost report takes the first run's answer (activities/present-once.ts).
     */
    async oauthComplete(input: { connectorId: string; pending: PendingAuthorization; callback: Ciphertext }): Promise<SealedTokens> {
      return withTypedFailures(() => {
        const id = input.connectorId;
        const callback = secrets.open(id, 'oauth_callback', input.callback);
        // A code is spent when presented, whatever the answer: the answer is always kept.
        return presentOnce(deps, secrets.codeKey(id, callback), id, async () => ({ answer: await exchange(id, input.pending, callback), keep: true }));
      });
    },

    /** `scheduledAt` (epoch ms): when the refresh loop meant it to run; absent for a refresh on a 401. */
    async oauthRefresh(input: InTaskCall & { connectorId: string; context: OAuthContext; refreshToken: Ciphertext; scheduledAt?: number }): Promise<SealedTokens> {
      return measuredRenewal(deps.metrics, scheduleLag(input.scheduledAt), () => withTypedFailures(() => {
        return refreshGrant(input.connectorId, input.context, input.refreshToken);
      }));
    },

    /** Client credentials (SEP-1046): the client's method chosen at this server, and its first token. */
    async oauthClientCredentials(input: {
      connectorId: string; authorizationServer: AuthorizationServerMetadata; resource: string;
      scopes: { challenge: string | null; resource: string[] | null }; grant: ClientCredentialsGrant;
    }): Promise<{ context: OAuthContext; tokens: SealedTokens }> {
      return withTypedFailures(async () => {
        const { grant, authorizationServer } = input;
        const scope = selectScope({
          challengeScope: input.scopes.challenge, resourceScopes: input.scopes.resource, authorizationServerScopes: authorizationServer.scopes_supported ?? null,
        });
        const authMethod = clientCredentialsAuthMethod(authorizationServer, { hasSecret: grant.clientSecret !== null, algorithm: grant.privateKey?.algorithm ?? null });
        const context: OAuthContext = {
          authorizationServer, resource: input.resource, scope, grant: 'client_credentials',
          redirectUri: oauthCallbackUrl(deps.baseUrl), // unused by this grant; kept for revocation's shared context
          client: { clientId: grant.clientId, clientSecret: grant.clientSecret, privateKey: grant.privateKey, authMethod, source: 'given' },
          ...secrets.newDpopKey(input.connectorId, authorizationServer),
        };
        return { context, tokens: await clientCredentialsToken(input.connectorId, context) };
      });
    },

    /** A client credentials token requested again (before expiry, or after a 401): the grant has no refresh token. */
    async oauthRenewClientCredentials(input: InTaskCall & { connectorId: string; context: OAuthContext; scheduledAt?: number }): Promise<SealedTokens> {
      return measuredRenewal(deps.metrics, scheduleLag(input.scheduledAt), () => withTypedFailures(() => {
        return clientCredentialsToken(input.connectorId, input.context);
      }));
    },

    async oauthRevoke(input: { connectorId: string; context: OAuthContext; accessToken: Ciphertext | null; refreshToken: Ciphertext | null }): Promise<void> {
      const id = input.connectorId;
      await withTypedFailures(() => revokeTokens({
        authorizationServer: input.context.authorizationServer, client: secrets.plainClient(id, input.context.client),
        accessToken: input.accessToken ? secrets.open(id, 'access_token', input.accessToken) : null,
        refreshToken: input.refreshToken ? secrets.open(id, 'refresh_token', input.refreshToken) : null,
      }, deps.http));
    },
  };
}
