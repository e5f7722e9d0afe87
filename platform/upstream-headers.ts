// A connector's upstream headers opened where they are sent (the probe activity, the proxy), in
// memory only: they are sealed everywhere else, per connector and header name.
import { headerPurpose, type SealedHeader } from '../contract/upstream-inputs';
import { secretContext, type SecretBox } from './secret-box';

export function openHeaders(secrets: SecretBox, connectorId: string, sealed: readonly SealedHeader[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of sealed ?? []) out[h.name.toLowerCase()] = secrets.open(h.value, secretContext(connectorId, headerPurpose(h.name)));
  return out;
}
