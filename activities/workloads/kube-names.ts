// Names and labels of a connector's Kubernetes objects, derived from its id alone so that any
// worker (or a reconciliation after a crash) finds them again. Connector ids are UUIDs, which fit
// as they are; anything else is shortened and made unique with a hash.
import { createHash } from 'node:crypto';

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'connector-registry';
export const CONNECTOR_LABEL = 'connector-registry/connector-id';
/** The exact connector id, whatever it looks like (a label value is limited to 63 characters). */
export const CONNECTOR_ANNOTATION = 'connector-registry/connector-id';
/** On the Deployment: a digest of its pod spec, to tell whether it is the one this runtime would create. */
export const TEMPLATE_HASH_ANNOTATION = 'connector-registry/pod-spec-hash';
/** Set per created Deployment: pods of an earlier one still terminating never count as ready. */
export const INSTANCE_LABEL = 'connector-registry/instance';

export const SERVER_CONTAINER = 'mcp-server';
export const GATEWAY_CONTAINER = 'gateway';
export const GATEWAY_PORT = 8080;
/**
 * The workload Secret's key for the gateway secret, next to the server's env values. Only the
 * gateway container refers to it; an env name equal to it is refused.
 */
export const GATEWAY_SECRET_KEY = '.gateway-secret';

// RFC 1035 label: a Service name must also start with a letter, hence the "mcp-" prefix.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const PREFIX = 'mcp-';

/**
 * The name of every object of the connector's workload (Deployment, Service, Secret,
 * ServiceAccount, Role, RoleBinding, NetworkPolicy): ≤ 63 characters, DNS-safe.
 */
export function workloadName(connectorId: string): string {
  if (DNS_LABEL.test(connectorId) && PREFIX.length + connectorId.length <= 63) return PREFIX + connectorId;
  const slug = connectorId.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 40).replace(/^-+|-+$/g, '');
  return `${PREFIX}${slug ? `${slug}-` : ''}${digest(connectorId, 12)}`;
}

/** The value of CONNECTOR_LABEL: the id itself when it is a valid label value. */
export function connectorLabelValue(connectorId: string): string {
  if (LABEL_VALUE.test(connectorId) && connectorId.length <= 63) return connectorId;
  return `h-${digest(connectorId, 56)}`;
}

export function workloadLabels(connectorId: string): Record<string, string> {
  return { [MANAGED_BY_LABEL]: MANAGED_BY, [CONNECTOR_LABEL]: connectorLabelValue(connectorId) };
}

export const managedSelector = `${MANAGED_BY_LABEL}=${MANAGED_BY}`;

export function instanceSelector(instance: string): string {
  return `${managedSelector},${INSTANCE_LABEL}=${instance}`;
}

/** The in-cluster MCP URL the proxy relays to. */
export function workloadTarget(connectorId: string, namespace: string): string {
  return `http://${workloadName(connectorId)}.${namespace}.svc:${GATEWAY_PORT}/mcp`;
}

function digest(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}
