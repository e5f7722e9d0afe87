// Workload identity (SEP-1933) as activities: the first token of a connect, and its renewal. The
// assertion is the service's own workload token, read from its file by each request (it rotates)
// and presented with the JWT bearer grant (RFC 7523 section 2.1) as the client the connect or the
// preset names; the token never leaves the activity. There is no refresh token to keep: the
// renewal reads the file again and asks again, as the client credentials grant does.
import { withTypedFailures } from './typed-failure';
import type { InTaskCall } from './in-task-admission';
import type { OAuthActivityDeps } from './oauth-activity-deps';
import type { OAuthSecrets } from './oauth-secrets';
import type { OAuthContext, SealedTokens, WorkloadIdentityGrant } from './oauth/oauth-state';
import { measuredRenewal, scheduleLag } from './refresh-metrics';
import { readWorkloadToken } from './workload-identity-token';
import {
  assertJwtBearerSupported, oauthCallbackUrl, requestJwtBearerToken, selectScope, type AuthorizationServerMetadata,
} from './oauth';

export function createWorkloadIdentitySteps(deps: OAuthActivityDeps, secrets: OAuthSecrets) {
  const workloadTokens = async (id: string, context: OAuthContext): Promise<SealedTokens> => {
    const assertion = await readWorkloadToken(deps.workloadIdentityTokenFile);
    const tokens = await requestJwtBearerToken({
      authorizationServer: context.authorizationServer, client: secrets.plainClient(id, context.client),
      assertion, resource: context.resource, scope: context.scope,
    }, deps.http);
    return secrets.sealTokens(id, { ...tokens, refreshToken: null }); // the file asks again, as fresh as it gets
  };

  return {
    /** The first token: the workload's token presented at the MCP server's authorization server. */
    async oauthWorkloadIdentity(input: {
      connectorId: string; authorizationServer: AuthorizationServerMetadata; resource: string;
      scopes: { challenge: string | null; resource: string[] | null }; grant: WorkloadIdentityGrant;
    }): Promise<{ context: OAuthContext; tokens: SealedTokens }> {
      return withTypedFailures(async () => {
        const { authorizationServer } = input;
        assertJwtBearerSupported(authorizationServer);
        const scope = selectScope({
          challengeScope: input.scopes.challenge, resourceScopes: input.scopes.resource, authorizationServerScopes: authorizationServer.scopes_supported ?? null,
        });
        const context: OAuthContext = {
          authorizationServer, resource: input.resource, scope, grant: 'workload_identity',
          redirectUri: oauthCallbackUrl(deps.baseUrl), // unused by this grant; kept for revocation's shared context
          // The assertion authenticates the workload; the client id only says which client it acts as.
          client: { clientId: input.grant.clientId, clientSecret: null, privateKey: null, authMethod: 'none', source: 'given' },
        };
        return { context, tokens: await workloadTokens(input.connectorId, context) };
      });
    },

    /** A new token before expiry or after a 401, with the workload's token as the file now holds it. */
    async oauthRenewWorkloadIdentity(input: InTaskCall & { connectorId: string; context: OAuthContext; scheduledAt?: number }): Promise<SealedTokens> {
      return measuredRenewal(deps.metrics, scheduleLag(input.scheduledAt), () => withTypedFailures(() => {
        return workloadTokens(input.connectorId, input.context);
      }));
    },
  };
}
