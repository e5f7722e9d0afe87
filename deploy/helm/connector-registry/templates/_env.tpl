{{/* The environment every role gets: the same configuration, each role using its part.
     Secrets arrive as secretKeyRef only, never as plain values. */}}
{{- define "cr.env" -}}
- { name: PORT, value: "8080" }
- { name: HOST, value: "0.0.0.0" }
- { name: BASE_URL, value: {{ .Values.baseUrl | quote }} }
- { name: LOG_LEVEL, value: {{ .Values.logLevel | quote }} }
{{- if .Values.metrics.port }}
- { name: CONNECTOR__METRICS_PORT, value: {{ .Values.metrics.port | quote }} }
{{- end }}
- { name: TEMPORAL_ADDRESS, value: {{ .Values.temporal.address | quote }} }
- { name: TEMPORAL_NAMESPACE, value: {{ .Values.temporal.namespace | quote }} }
- { name: CONNECTOR__TASK_QUEUE, value: {{ .Values.temporal.taskQueue | quote }} }
- { name: CONNECTOR__WORKFLOW_SHARDS, value: {{ .Values.temporal.workflowShards | quote }} }
{{- if .Values.temporal.tls.enabled }}
- { name: TEMPORAL_TLS, value: "true" }
{{- with .Values.temporal.tls.existingSecret }}
- { name: TEMPORAL_TLS_CLIENT_CERT_PATH, value: /var/run/temporal-tls/tls.crt }
- { name: TEMPORAL_TLS_CLIENT_KEY_PATH, value: /var/run/temporal-tls/tls.key }
- { name: TEMPORAL_TLS_SERVER_CA_CERT_PATH, value: /var/run/temporal-tls/ca.crt }
{{- end }}
{{- with .Values.temporal.tls.serverName }}
- { name: TEMPORAL_TLS_SERVER_NAME, value: {{ . | quote }} }
{{- end }}
{{- end }}
{{- with .Values.temporal.apiKey.existingSecret }}
- name: TEMPORAL_API_KEY
  valueFrom: { secretKeyRef: { name: {{ . | quote }}, key: {{ $.Values.temporal.apiKey.key | quote }} } }
{{- end }}
- name: MONGODB_URI
  valueFrom: { secretKeyRef: { name: {{ include "cr.mongoSecret" . | quote }}, key: {{ ternary .Values.mongodb.existingSecretKey "uri" (ne .Values.mongodb.existingSecret "") | quote }} } }
- { name: MONGODB_DATABASE, value: {{ .Values.mongodb.database | quote }} }
- name: CONNECTOR__ENCRYPTION_KEY
  valueFrom: { secretKeyRef: { name: {{ include "cr.keySecret" . | quote }}, key: encryption-key } }
- name: CONNECTOR__PRESETS
  valueFrom: { secretKeyRef: { name: {{ include "cr.presetsSecret" . | quote }}, key: presets } }
{{- if or .Values.callers.apiKeys .Values.callers.existingSecret }}
- name: CONNECTOR__API_KEYS
  valueFrom: { secretKeyRef: { name: {{ .Values.callers.existingSecret | default (include "cr.configSecret" .) | quote }}, key: api-keys } }
{{- end }}
{{- if .Values.callers.issuer }}
- name: CONNECTOR__AUTH_ISSUER
  valueFrom: { secretKeyRef: { name: {{ include "cr.configSecret" . | quote }}, key: auth-issuer } }
{{- end }}
{{- with .Values.callers.audience }}
- { name: CONNECTOR__AUTH_AUDIENCE, value: {{ . | quote }} }
{{- end }}
- { name: CONNECTOR__AUTH_SUBJECT_CLAIM, value: {{ .Values.callers.subjectClaim | quote }} }
- { name: CONNECTOR__AUTH_ROLES_CLAIM, value: {{ .Values.callers.rolesClaim | quote }} }
- { name: CONNECTOR__AUTH_ADMIN_ROLE, value: {{ .Values.callers.adminRole | quote }} }
- { name: CONNECTOR__AUTH_SCOPES, value: {{ .Values.callers.scopes | quote }} }
- { name: CONNECTOR__ALLOWED_ORIGINS, value: {{ join "," .Values.callers.allowedOrigins | quote }} }
- { name: CONNECTOR__ALLOWED_REDIRECT_ORIGINS, value: {{ join "," .Values.callers.allowedRedirectOrigins | quote }} }
- { name: CONNECTOR__MAX_CONNECTORS_PER_OWNER, value: {{ .Values.callers.maxConnectorsPerOwner | quote }} }
- { name: CONNECTOR__MAX_STREAMS_PER_OWNER, value: {{ .Values.callers.maxStreamsPerOwner | quote }} }
- { name: CONNECTOR__BLOCK_PRIVATE_NETWORKS, value: {{ .Values.connector.blockPrivateNetworks | quote }} }
- { name: CONNECTOR__ALLOWED_PRIVATE_NETWORKS, value: {{ join "," .Values.connector.allowedPrivateNetworks | quote }} }
{{- if .Values.connector.workloadIdentity.audience }}
- { name: CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE, value: {{ include "cr.workloadIdentityDir" . }}/token }
{{- end }}
{{- with .Values.registry.url }}
- { name: CONNECTOR__REGISTRY_URL, value: {{ . | quote }} }
{{- /* A Secret: the allow-list's overlays may carry OAuth client secrets. */}}
- name: CONNECTOR__REGISTRY_SERVERS
  valueFrom: { secretKeyRef: { name: {{ $.Values.registry.existingSecret | default (include "cr.configSecret" $) | quote }}, key: registry-servers } }
- { name: CONNECTOR__REGISTRY_SYNC_MINUTES, value: {{ $.Values.registry.syncMinutes | quote }} }
{{- end }}
{{- with .Values.console.clientId }}
- { name: CONNECTOR__CONSOLE_CLIENT_ID, value: {{ . | quote }} }
- { name: CONNECTOR__CONSOLE_SCOPE, value: {{ $.Values.console.scope | quote }} }
{{- end }}
{{- if .Values.stdio.enabled }}
- { name: CONNECTOR__STDIO_RUNTIME, value: kubernetes }
- { name: CONNECTOR__KUBE_NAMESPACE, value: {{ include "cr.workloadNamespace" . | quote }} }
- { name: CONNECTOR__KUBE_GATEWAY_IMAGE, value: {{ include "cr.image" (merge (dict "appVersion" .Chart.AppVersion) .Values.stdio.gatewayImage) | quote }} }
- { name: CONNECTOR__KUBE_PROXY_SELECTOR, value: {{ printf "app.kubernetes.io/name=connector-registry,app.kubernetes.io/instance=%s,app.kubernetes.io/component=proxy" .Release.Name | quote }} }
- { name: CONNECTOR__KUBE_PROXY_NAMESPACE_SELECTOR, value: {{ printf "kubernetes.io/metadata.name=%s" .Release.Namespace | quote }} }
- { name: CONNECTOR__STDIO_READY_TIMEOUT_MS, value: {{ .Values.stdio.readyTimeoutMs | quote }} }
{{- /* What each workload's NetworkPolicy lets it reach (the worker writes it; values "Network policies"). */}}
- { name: CONNECTOR__KUBE_WORKLOAD_ALLOWED_NETWORKS, value: {{ join "," .Values.stdio.allowedNetworks | quote }} }
- { name: CONNECTOR__KUBE_CLUSTER_CIDRS, value: {{ join "," .Values.networkPolicy.clusterCidrs | quote }} }
- { name: CONNECTOR__KUBE_DNS_SELECTOR, value: {{ include "cr.labelList" .Values.networkPolicy.dns.podSelector.matchLabels | quote }} }
- { name: CONNECTOR__KUBE_DNS_NAMESPACE_SELECTOR, value: {{ include "cr.labelList" .Values.networkPolicy.dns.namespaceSelector.matchLabels | quote }} }
- { name: CONNECTOR__KUBE_DNS_CIDRS, value: {{ join "," .Values.networkPolicy.dns.cidrs | quote }} }
- { name: CONNECTOR__KUBE_API_SERVER_CIDRS, value: {{ include "cr.apiServerCidrs" . | quote }} }
- { name: CONNECTOR__KUBE_API_SERVER_PORTS, value: {{ join "," .Values.networkPolicy.kubeApiServer.ports | quote }} }
{{- end }}
{{- range $name, $value := .Values.connector.extraEnv }}
- { name: {{ $name }}, value: {{ $value | quote }} }
{{- end }}
{{- end -}}
