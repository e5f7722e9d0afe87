// An enterprise-managed grant (SEP-990) renews itself from the user's identity assertion. Once
// that assertion obtains no token (its exp is past, or the identity provider or authorization
// server refuses it), only a fresh ID token helps, and only the platform or the signed-in user has
// one: the connector asks for it (auth_required, an assertion request naming what is needed)
// instead of dropping the grant silently. A connect with a fresh id_token brings it back.
import type { ConnectorEvent } from '../contract/connector-states';
import type { OAuthState } from '../activities/oauth/oauth-state';
import type { ApplyOptions, ConnectorEntity } from './connector-entity';

type Session = NonNullable<OAuthState['session']>;

interface AssertionContext {
  entity: ConnectorEntity;
  commit: (event: ConnectorEvent, options: ApplyOptions) => Promise<void>;
}

/** Whether only a fresh identity assertion can renew this grant once it fails for good. */
export function renewsFromAssertion(session: Session | null | undefined): boolean {
  return session?.context.grant === 'enterprise_managed';
}

/** auth_required with an assertion request; `why` says what failed, for the record and the audit. */
export async function askForAssertion({ entity, commit }: AssertionContext, why: string): Promise<void> {
  const issuer = entity.data.oauth.session?.context.enterprise?.issuer ?? null;
  entity.data.secrets.accessToken = null; // expired or refused: nothing to route with
  entity.data.authRequest = {
    type: 'assertion', needs: 'id_token', issuer,
    message: `${why}; connect again with grant enterprise_managed and a fresh id_token${issuer ? ` from ${issuer}` : ''}`,
  };
  await commit('assertion_required', { actor: 'service', reason: `${why}; waiting for a connect with a fresh id_token` });
}
