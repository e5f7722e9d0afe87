// Kubernetes label selectors as the configuration names them (`key=value[,key=value]`), and the
// defaults that match the chart's proxy pods: the NetworkPolicy of every workload admits those.

/** Labels of the service's proxy pods: each workload's NetworkPolicy admits only them. */
export const DEFAULT_KUBE_PROXY_SELECTOR = 'app.kubernetes.io/name=connector-registry,app.kubernetes.io/component=proxy';
/** The namespace of the proxy pods (the service's own, apart from the workloads'), by its automatic label. */
export const DEFAULT_KUBE_PROXY_NAMESPACE_SELECTOR = 'kubernetes.io/metadata.name=connector-registry';

// A label key: an optional DNS-subdomain prefix and a name of up to 63 characters; a value: such a
// name or nothing.
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** `key=value[,key=value]` into matchLabels; a bad key or value throws naming it. */
export function parseLabelSelector(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`"${pair}" is not key=value`);
    const key = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const slash = key.lastIndexOf('/');
    const prefix = slash === -1 ? undefined : key.slice(0, slash);
    const name = key.slice(slash + 1);
    if (!LABEL_NAME.test(name) || (prefix !== undefined && (prefix.length > 253 || !LABEL_PREFIX.test(prefix)))) {
      throw new Error(`"${key}" is not a Kubernetes label key`);
    }
    if (value !== '' && !LABEL_NAME.test(value)) throw new Error(`"${value}" is not a Kubernetes label value`);
    labels[key] = value;
  }
  if (Object.keys(labels).length === 0) throw new Error('must name at least one label as key=value');
  return labels;
}
