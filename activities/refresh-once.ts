// The refresh token grant as the activities run it: the refresh token is presented to its
// authorization server once, however often the refresh runs (activities/present-once.ts says why
// it can run twice; store/refresh-ledger.ts what a second presentation costs).
import type { Ciphertext } from '../platform/secret-box';
import type { OAuthActivityDeps } from './oauth-activity-deps';
import type { OAuthSecrets } from './oauth-secrets';
import type { OAuthContext, SealedTokens } from './oauth/oauth-state';
import { refreshTokens } from './oauth';
import { presentOnce } from './present-once';

export type RefreshGrant = (connectorId: string, context: OAuthContext, refreshToken: Ciphertext) => Promise<SealedTokens>;

export function createRefreshOnce(deps: OAuthActivityDeps, secrets: OAuthSecrets): RefreshGrant {
  return (id, context, refreshToken) => {
    const previous = secrets.open(id, 'refresh_token', refreshToken);
    return presentOnce(deps, secrets.refreshKey(id, previous), id, async () => {
      const tokens = await refreshTokens({
        authorizationServer: context.authorizationServer, client: secrets.plainClient(id, context.client),
        refreshToken: previous, resource: context.resource, dpopKey: secrets.dpopKey(id, context),
      }, deps.http);
      // A server that does not rotate keeps the previous refresh token valid: the next refresh
      // presents it again, as it may, and must not be handed this answer.
      const rotated = tokens.refreshToken !== null && tokens.refreshToken !== previous;
      return { answer: secrets.sealTokens(id, { ...tokens, refreshToken: tokens.refreshToken ?? previous }), keep: rotated };
    });
  };
}
