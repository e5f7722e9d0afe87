// Enterprise-managed authorization (SEP-990) as activities: the first token of a connect, and its
// renewal. Each activity makes the token exchange at the identity provider and the JWT bearer
// grant together: an ID-JAG is short-lived and meant for one use, so a retry must ask for a new
// one rather than present the old one again, and it never leaves the activity (nor reaches history).
import type { InTaskCall } from './in-task-admission';
import type { Ciphertext } from '../platform/secret-box';
import { withTypedFailures } from './typed-failure';
import type { OAuthActivityDeps } from './oauth-activity-deps';
import type { OAuthSecrets } from './oauth-secrets';
import type { EnterpriseManagedGrant, OAuthContext, SealedTokens } from './oauth/oauth-state';
import { measuredRenewal, scheduleLag } from './refresh-metrics';
import { createRefreshOnce } from './refresh-once';
import {
  InvalidGrantError, assertJwtBearerSupported, clientCredentialsAuthMethod, oauthCallbackUrl, requestIdJag,
  requestJwtBearerToken, selectScope, type AuthorizationServerMetadata,
} from './oauth';

export function createEnterpriseManagedSteps(deps: OAuthActivityDeps, secrets: OAuthSecrets) {
  const refreshGrant = createRefreshOnce(deps, secrets);
  /** A new ID-JAG from the user's identity assertion, presented for a token; refused without asking once the assertion has expired. */
  const assertionTokens = async (id: string, context: OAuthContext): Promise<SealedTokens> => {
    const enterprise = context.enterprise!;
    if (enterprise.idTokenExpiresAt && Date.parse(enterprise.idTokenExpiresAt) <= Date.now()) {
      throw new InvalidGrantError("the user's identity assertion (id_token) has expired; connect again with a new one");
    }
    const assertion = await requestIdJag({
      idpTokenEndpoint: enterprise.idpTokenEndpoint,
      idpClient: {
        clientId: enterprise.idpClientId,
        clientSecret: enterprise.idpClientSecret ? secrets.open(id, 'idp_client_secret', enterprise.idpClientSecret) : null,
      },
      idToken: secrets.open(id, 'id_token', enterprise.idToken),
      audience: context.authorizationServer.issuer, resource: context.resource, scope: context.scope,
    }, deps.http);
    const tokens = await requestJwtBearerToken({
      authorizationServer: context.authorizationServer, client: secrets.plainClient(id, context.client),
      assertion, resource: context.resource, scope: context.scope, dpopKey: secrets.dpopKey(id, context),
    }, deps.http);
    return secrets.sealTokens(id, tokens);
  };

  /** The refresh token where the server gave one; null when it is refused for good (the assertion is tried next). */
  const refreshed = async (id: string, context: OAuthContext, refreshToken: Ciphertext): Promise<SealedTokens | null> => {
    try {
      return await refreshGrant(id, context, refreshToken);
    } catch (err) {
      if (err instanceof InvalidGrantError) return null;
      throw err;
    }
  };

  return {
    /** The MCP authorization server's client method chosen, and the first token (SEP-990). */
    async oauthEnterpriseManaged(input: {
      connectorId: string; authorizationServer: AuthorizationServerMetadata; resource: string;
      scopes: { challenge: string | null; resource: string[] | null }; grant: EnterpriseManagedGrant;
    }): Promise<{ context: OAuthContext; tokens: SealedTokens }> {
      return withTypedFailures(async () => {
        const { authorizationServer } = input;
        const { client, assertion } = input.grant;
        assertJwtBearerSupported(authorizationServer);
        const scope = selectScope({
          challengeScope: input.scopes.challenge, resourceScopes: input.scopes.resource, authorizationServerScopes: authorizationServer.scopes_supported ?? null,
        });
        const authMethod = clientCredentialsAuthMethod(authorizationServer, { hasSecret: client.clientSecret !== null, algorithm: client.privateKey?.algorithm ?? null });
        const context: OAuthContext = {
          authorizationServer, resource: input.resource, scope, grant: 'enterprise_managed', enterprise: assertion,
          redirectUri: oauthCallbackUrl(deps.baseUrl), // unused by this grant; kept for revocation's shared context
          client: { clientId: client.clientId, clientSecret: client.clientSecret, privateKey: client.privateKey, authMethod, source: 'given' },
          ...secrets.newDpopKey(input.connectorId, authorizationServer),
        };
        return { context, tokens: await assertionTokens(input.connectorId, context) };
      });
    },

    /**
     * A new token before expiry or after a 401: by the refresh token where there is one, else (or
     * when it is refused) from the identity assertion while it is valid. An invalid_grant out of
     * here means neither works: only a connect with a new id_token helps.
     */
    async oauthRenewEnterpriseManaged(input: InTaskCall & { connectorId: string; context: OAuthContext; refreshToken: Ciphertext | null; scheduledAt?: number }): Promise<SealedTokens> {
      return measuredRenewal(deps.metrics, scheduleLag(input.scheduledAt), () => withTypedFailures(async () => {
        const id = input.connectorId;
        const viaRefresh = input.refreshToken ? await refreshed(id, input.context, input.refreshToken) : null;
        return viaRefresh ?? assertionTokens(id, input.context);
      }));
    },
  };
}
