// What a disconnect or delete undoes: the managed workload goes, the grant is revoked where the
// server allows it. Captured before the transition, because leaving `connected` drops the tokens.
import type { Ciphertext } from '../platform/secret-box';
import type { ConnectorEntity } from './connector-entity';
import { cleanup } from './activity-proxies';

export interface TeardownMaterial {
  connectorId: string;
  stdio: boolean;
  grant: { context: NonNullable<ConnectorEntity['data']['oauth']['session']>['context']; accessToken: Ciphertext | null; refreshToken: Ciphertext | null } | null;
}

export function teardownMaterial(entity: ConnectorEntity): TeardownMaterial {
  const d = entity.data;
  const session = d.oauth.session;
  return {
    connectorId: d.init.id,
    stdio: entity.runsWorkload,
    grant: session ? { context: session.context, accessToken: d.secrets.accessToken, refreshToken: session.refreshToken } : null,
  };
}

export async function teardown(material: TeardownMaterial): Promise<void> {
  if (material.stdio) await cleanup.removeWorkload({ connectorId: material.connectorId });
  if (material.grant) {
    await cleanup.oauthRevoke({
      connectorId: material.connectorId, context: material.grant.context,
      accessToken: material.grant.accessToken, refreshToken: material.grant.refreshToken,
    }).catch(() => undefined); // revocation is a courtesy: a server that refuses it does not block the disconnect
  }
}
