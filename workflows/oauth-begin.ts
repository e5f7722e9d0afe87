// The first steps of an authorization as the workflow chains them, one activity per step
// (activities/oauth-begin-steps.ts): probe, discover, identify the client, issue the authorization
// URL. A step that fails is retried alone, and the history names it. Used by a connect, by a
// re-authorization after a refusal, and by a step-up.
import type { AuthChallenge } from '../contract/www-authenticate';
import type { PendingAuthorization } from '../activities/oauth/oauth-state';
import type { ConnectorEntity } from './connector-entity';
import { remote } from './activity-proxies';

export type BeginResult =
  /** The server answered without authorization, at this MCP revision. */
  | { kind: 'open'; protocolVersion: string | null }
  | {
    kind: 'authorize'; authorizationUrl: string; expiresAt: string; pending: PendingAuthorization;
    /** SEP-2352: the server now names another authorization server than the connector's last grant came from. */
    authorizationServerChanged?: { from: string; to: string } | null;
  };

/**
 * Starts an authorization for the connector as it stands: its client, its accumulated scopes, and
 * the challenge it keeps (or `challenge`, a step-up's). A kept challenge wins over an open
 * handshake: the server asked for authorization through the proxy earlier.
 */
export async function beginAuthorization(
  entity: ConnectorEntity, redirectUrl: string | null, known: AuthChallenge | null = entity.data.oauth.challenge,
): Promise<BeginResult> {
  const init = entity.data.init;
  const steps = remote(init.settings.connectTimeoutMs);
  const connectorId = init.id;
  const url = entity.upstreamUrl;
  const probed = await steps.oauthProbe({ connectorId, url, headers: entity.upstreamHeaders, ...entity.upstreamTransport });
  if (probed.kind === 'open' && !known) return { kind: 'open', protocolVersion: probed.protocolVersion };
  const challenge = (probed.kind === 'challenge' ? probed.challenge : null) ?? known;
  const found = await steps.oauthDiscover({ connectorId, url, challenge });
  const identified = await steps.oauthIdentifyClient({
    connectorId, authorizationServer: found.authorizationServer,
    given: init.clientId ? { clientId: init.clientId, clientSecret: init.clientSecret } : null,
    presetClient: init.presetClient && init.preset ? init.preset.url : null,
    boundIssuer: entity.data.oauth.boundIssuer ?? entity.data.oauth.session?.context.authorizationServer.issuer ?? null,
  });
  const authorization = await steps.oauthAuthorize({
    connectorId, authorizationServer: found.authorizationServer, client: identified.client, resource: found.resource,
    scopes: { challenge: found.challengeScope, resource: found.resourceScopes, extra: [...accumulatedScopes(entity), ...(known?.scope?.split(' ') ?? [])] },
    redirectUrl,
  });
  return { kind: 'authorize', ...authorization, authorizationServerChanged: identified.authorizationServerChanged };
}

/**
 * SEP-2350: what a new authorization asks for besides the server's current challenge: every scope
 * a step-up asked for, and every scope the last grant carried.
 */
export function accumulatedScopes(entity: ConnectorEntity): string[] {
  const { stepUpScopes, grantedScopes } = entity.data.oauth;
  return [...new Set([...grantedScopes, ...stepUpScopes])];
}
