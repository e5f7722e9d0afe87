{{- /* Written by `npm run docs:api` from contract/operations.ts (api/ingress-paths.ts): the
  paths of the operations the proxy serves, which the Ingress sends to the proxy Service. Do not edit. */ -}}
{{- define "cr.proxyPaths" -}}
["/api/v1/connectors/[^/]+/mcp/?$","/api/v1/toolsets/[^/]+/mcp/?$"]
{{- end }}
