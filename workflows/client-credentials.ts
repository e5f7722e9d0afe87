// A connect with the client credentials grant (SEP-1046): no user takes part, so the steps run
// one after the other within the connect: probe, discovery, the token (one activity each, so a
// retry repeats only the step that failed), then the token tried on the MCP server. The grant
// has no refresh token: the refresh loop and the proxy's 401 path ask for a new token with the
// same sealed credentials (watches.ts).
import type { OAuthState } from '../activities/oauth/oauth-state';
import type { ConnectorEvent } from '../contract/connector-states';
import type { ApplyOptions, ConnectorEntity } from './connector-entity';
import type { ConnectInput } from './messages';
import { remote } from './activity-proxies';

type Session = NonNullable<OAuthState['session']>;

/** What connect-job.ts hands over (its ConnectJob, restated so that neither file imports the other). */
interface ClientCredentialsJob {
  entity: ConnectorEntity;
  commit: (event: ConnectorEvent, options: ApplyOptions) => Promise<void>;
  request: ConnectInput;
}

export async function connectWithClientCredentials(job: ClientCredentialsJob): Promise<void> {
  const { entity, request } = job;
  const { id: connectorId, settings } = entity.data.init;
  const url = entity.upstreamUrl;
  const headers = entity.upstreamHeaders;
  const steps = remote(settings.connectTimeoutMs);
  const probed = await steps.oauthProbe({ connectorId, url, headers });
  const challenge = (probed.kind === 'challenge' ? probed.challenge : null) ?? entity.data.oauth.challenge;
  const found = await steps.oauthDiscover({ connectorId, url, challenge, grant: 'client_credentials' });
  const { context, tokens } = await steps.oauthClientCredentials({
    connectorId, authorizationServer: found.authorizationServer, resource: found.resource,
    scopes: { challenge: found.challengeScope, resource: found.resourceScopes }, grant: request.clientCredentials!,
  });
  const checked = await steps.probeServer({ connectorId, url, token: tokens.accessToken, headers });
  entity.data.secrets.accessToken = tokens.accessToken;
  entity.data.oauth.boundIssuer = context.authorizationServer.issuer;
  entity.data.oauth.session = { context, refreshToken: null, expiresAt: tokens.expiresAt, obtainedAt: new Date().toISOString() };
  await job.commit('connect_succeeded', {
    actor: request.actor, reason: 'token obtained with the client credentials grant', protocolVersion: checked.protocolVersion,
  });
}

/** The grant renews itself with its client's credentials rather than with a refresh token. */
export function renewsWithCredentials(session: Session): boolean {
  return session.context.grant === 'client_credentials';
}

/** Whether a new token can be had without the user: a refresh token, or the client's own credentials. */
export function renewable(session: Session | null | undefined): boolean {
  return Boolean(session && (session.refreshToken || renewsWithCredentials(session)));
}
