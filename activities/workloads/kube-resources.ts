// Requests and limits of a workload's two containers. The MCP server's come from the preset's
// stdio.resources over these defaults; the gateway sidecar's are fixed (it only relays bytes).
import type { V1ResourceRequirements } from '@kubernetes/client-node';
import { quantityValue, type ResourceName } from '../../contract/kube-quantity';
import type { StdioResources } from '../../contract/schemas';

type ResourceList = Record<ResourceName, string>;

export const SERVER_RESOURCES: { requests: ResourceList; limits: ResourceList } = {
  requests: { cpu: '100m', memory: '128Mi' },
  limits: { cpu: '1', memory: '512Mi' },
};

export const GATEWAY_RESOURCES: { requests: ResourceList; limits: ResourceList } = {
  requests: { cpu: '50m', memory: '64Mi' },
  limits: { cpu: '500m', memory: '256Mi' },
};

/**
 * The preset's own numbers always hold; a default that would contradict one of them (a default
 * request above the preset's limit, a default limit below its request) moves to meet it, since
 * the API server refuses a request above its limit.
 */
export function serverResources(preset: StdioResources | undefined): V1ResourceRequirements {
  const requests = { ...SERVER_RESOURCES.requests, ...preset?.requests };
  const limits = { ...SERVER_RESOURCES.limits, ...preset?.limits };
  for (const name of ['cpu', 'memory'] as const) {
    if (quantityValue(name, requests[name]) <= quantityValue(name, limits[name])) continue;
    if (preset?.requests?.[name] === undefined) requests[name] = limits[name];
    else limits[name] = requests[name];
  }
  return { requests, limits };
}

export function gatewayResources(): V1ResourceRequirements {
  return { requests: { ...GATEWAY_RESOURCES.requests }, limits: { ...GATEWAY_RESOURCES.limits } };
}
