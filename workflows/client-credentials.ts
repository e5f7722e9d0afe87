// A connect with a grant the service makes on its own, without a consent page: client
// credentials (SEP-1046), or enterprise-managed authorization (SEP-990: the user's identity
// assertion exchanged at the enterprise identity provider for an ID-JAG, presented with the JWT
// bearer grant), or workload identity (SEP-1933: the service's own workload token, presented with
// the JWT bearer grant). No user is sent anywhere, so the steps run one after the other within the
// connect: probe, discovery, the token (one activity each, so a retry repeats only the step that
// failed), then the token tried on the MCP server. The refresh loop and the proxy's 401 path
// renew with the same sealed material (watches.ts): client credentials ask again; an
// enterprise-managed grant uses its refresh token where the server gave one, else the assertion;
// workload identity asks again with the workload's token as its file then holds it.
import type { OAuthState } from '../activities/oauth/oauth-state';
import type { ConnectorEvent } from '../contract/connector-states';
import { boundKey, type ApplyOptions, type ConnectorEntity } from './connector-entity';
import type { ConnectInput } from './messages';
import { remote } from './activity-proxies';

type Session = NonNullable<OAuthState['session']>;

/** What connect-job.ts hands over (its ConnectJob, restated so that neither file imports the other). */
interface ServiceGrantJob {
  entity: ConnectorEntity;
  commit: (event: ConnectorEvent, options: ApplyOptions) => Promise<void>;
  request: ConnectInput;
}

/** Whether the connect asks for one of these grants. */
export function connectsWithServiceGrant(request: ConnectInput): boolean {
  return Boolean(request.clientCredentials || request.enterpriseManaged || request.workloadIdentity);
}

export async function connectWithServiceGrant(job: ServiceGrantJob): Promise<void> {
  const { entity, request } = job;
  const { id: connectorId, settings } = entity.data.init;
  const url = entity.upstreamUrl;
  const headers = entity.upstreamHeaders;
  const { enterpriseManaged: enterprise, workloadIdentity: workload } = request;
  const steps = remote(settings.connectTimeoutMs);
  const probed = await steps.oauthProbe({ connectorId, url, headers, ...entity.upstreamTransport });
  const challenge = (probed.kind === 'challenge' ? probed.challenge : null) ?? entity.data.oauth.challenge;
  const found = await steps.oauthDiscover({ connectorId, url, challenge, grant: enterprise || workload ? 'jwt_bearer' : 'client_credentials' });
  const at = {
    connectorId, authorizationServer: found.authorizationServer, resource: found.resource,
    scopes: { challenge: found.challengeScope, resource: found.resourceScopes },
  };
  const { context, tokens } = enterprise ? await steps.oauthEnterpriseManaged({ ...at, grant: enterprise })
    : workload ? await steps.oauthWorkloadIdentity({ ...at, grant: workload })
    : await steps.oauthClientCredentials({ ...at, grant: request.clientCredentials! });
  const checked = await steps.probeServer({ connectorId, url, token: tokens.accessToken, headers, dpopKey: boundKey(context, tokens), ...entity.upstreamTransport });
  entity.data.secrets.accessToken = tokens.accessToken;
  entity.data.oauth.boundIssuer = context.authorizationServer.issuer;
  entity.data.oauth.session = { context, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt, obtainedAt: new Date().toISOString(), dpop: tokens.dpop };
  const how = enterprise ? "an ID-JAG from the user's identity provider (enterprise-managed authorization)"
    : workload ? "the service's workload identity token (JWT bearer grant)" : 'the client credentials grant';
  const bound = tokens.dpop ? ", DPoP-bound to the connector's key" : '';
  await job.commit('connect_succeeded', {
    actor: request.actor, reason: `token obtained with ${how}${bound}`, protocolVersion: checked.protocolVersion, authKind: context.grant ?? 'client_credentials',
  });
}

/** The grant renews itself with the material the connect gave (credentials, an identity assertion), not only with a refresh token. */
export function renewsWithCredentials(session: Session): boolean {
  return session.context.grant !== undefined;
}

/** Whether a new token can be had without the user: a refresh token, or the client's own credentials. */
export function renewable(session: Session | null | undefined): boolean {
  return Boolean(session && (session.refreshToken || renewsWithCredentials(session)));
}
