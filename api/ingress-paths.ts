// The chart's Ingress rules, derived from the declarations: the path of every operation the proxy
// serves, as a regular expression in ingress-nginx's syntax (the chart turns on use-regex; a
// Kubernetes path type has no portable way to say "an id in the middle"), rendered into a named
// template of the chart. `npm run docs:api` writes it; test/deploy/ingress-paths.test.ts fails
// when the chart's copy differs, and renders the chart to check where each operation goes.
import { pathPattern } from '../contract/public-paths';
import { operations } from '../contract/operations';

/** Where the chart keeps the generated template, from the repository's root. */
export const INGRESS_PATHS_FILE = 'deploy/helm/connector-registry/templates/_proxy-paths.tpl';

/** The Ingress path of each distinct path the proxy serves, in declaration order. */
export function proxyIngressPaths(): string[] {
  const paths = operations().filter(([, op]) => op.servedBy === 'proxy').map(([, op]) => `${pathPattern(op.path)}/?$`);
  return [...new Set(paths)];
}

export function renderIngressPaths(): string {
  return [
    '{{- /* Written by `npm run docs:api` from contract/operations.ts (api/ingress-paths.ts): the',
    '  paths of the operations the proxy serves, which the Ingress sends to the proxy Service. Do not edit. */ -}}',
    '{{- define "cr.proxyPaths" -}}',
    JSON.stringify(proxyIngressPaths()),
    '{{- end }}',
    '',
  ].join('\n');
}
