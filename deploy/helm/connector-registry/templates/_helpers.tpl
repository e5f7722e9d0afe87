{{/* Names and labels shared by every object of the release. */}}
{{- define "cr.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "cr.labels" -}}
app.kubernetes.io/name: connector-registry
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The selector of one role's pods: name, instance and component. */}}
{{- define "cr.selector" -}}
app.kubernetes.io/name: connector-registry
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .role }}
{{- end -}}

{{/* An image pinned by digest when one is given, else by its tag (default: the chart's appVersion, never a moving tag). */}}
{{- define "cr.image" -}}
{{- if .digest -}}
{{- printf "%s@%s" .repository .digest -}}
{{- else -}}
{{- printf "%s:%s" .repository (.tag | default $.appVersion) -}}
{{- end -}}
{{- end -}}

{{- define "cr.configSecret" -}}{{ include "cr.fullname" . }}-config{{- end -}}
{{- define "cr.presetsSecret" -}}
{{- .Values.connector.existingPresetsSecret | default (printf "%s-presets" (include "cr.fullname" .)) -}}
{{- end -}}
{{- define "cr.keySecret" -}}
{{- .Values.encryption.existingSecret | default (printf "%s-key" (include "cr.fullname" .)) -}}
{{- end -}}
{{- define "cr.mongoSecret" -}}
{{- .Values.mongodb.existingSecret | default (include "cr.configSecret" .) -}}
{{- end -}}
{{/* A namespace of their own: third-party MCP servers never share one with the service's pods and Secrets. */}}
{{- define "cr.workloadNamespace" -}}
{{- .Values.stdio.namespace | default (printf "%s-workloads" .Release.Name | trunc 63 | trimSuffix "-") -}}
{{- end -}}
{{- define "cr.workerServiceAccount" -}}{{ include "cr.fullname" . }}-worker{{- end -}}

{{/* Where the worker's projected workload identity token is mounted (connector.workloadIdentity). */}}
{{- define "cr.workloadIdentityDir" -}}/var/run/secrets/connector-registry/workload-identity{{- end -}}

{{/* Hardened container security context (non-root, read-only root, no capabilities). */}}
{{- define "cr.containerSecurity" -}}
runAsNonRoot: true
runAsUser: 1000
runAsGroup: 1000
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* A list of port numbers as NetworkPolicy ports (TCP). */}}
{{- define "cr.tcpPorts" -}}
{{- range . }}
- { protocol: TCP, port: {{ . }} }
{{- end }}
{{- end -}}

{{/* The cluster DNS: its pods by labels (most network plugins judge Service traffic after it reaches
     a pod) and addresses such as a node-local cache's. */}}
{{- define "cr.dnsPeers" -}}
{{- $dns := .Values.networkPolicy.dns -}}
- namespaceSelector: {{- toYaml $dns.namespaceSelector | nindent 4 }}
  podSelector: {{- toYaml $dns.podSelector | nindent 4 }}
{{- range $dns.cidrs }}
- ipBlock: { cidr: {{ . | quote }} }
{{- end }}
{{- end -}}

{{/* Ranges that are never the public internet: RFC 1918, CGNAT, loopback, link-local (cloud
     metadata), IPv6 unique-local and link-local. */}}
{{- define "cr.privateV4" -}}["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16"]{{- end -}}
{{- define "cr.privateV6" -}}["fc00::/7", "fe80::/10", "::1/128"]{{- end -}}

{{/* Every address but the private ranges and the cluster's own CIDRs (networkPolicy.clusterCidrs). */}}
{{- define "cr.publicInternet" -}}
{{- $v4 := include "cr.privateV4" . | fromJsonArray -}}
{{- $v6 := include "cr.privateV6" . | fromJsonArray -}}
{{- range .Values.networkPolicy.clusterCidrs -}}
{{- if contains ":" . }}{{ $v6 = append $v6 . }}{{ else }}{{ $v4 = append $v4 . }}{{ end -}}
{{- end -}}
- ipBlock: { cidr: 0.0.0.0/0, except: {{ toJson $v4 }} }
- ipBlock: { cidr: "::/0", except: {{ toJson $v6 }} }
{{- end -}}

{{/* matchLabels as the service's selector variables spell them: key=value,key=value. */}}
{{- define "cr.labelList" -}}
{{- $pairs := list -}}
{{- range $key, $value := . }}{{ $pairs = append $pairs (printf "%s=%s" $key $value) }}{{ end -}}
{{- join "," $pairs -}}
{{- end -}}

{{/* A CIDR as a NetworkPolicy needs it: a bare address (the service's settings allow one) is one host. */}}
{{- define "cr.cidr" -}}
{{- if contains "/" . }}{{ . }}{{ else if contains ":" . }}{{ . }}/128{{ else }}{{ . }}/32{{ end -}}
{{- end -}}

{{/* The ipBlock CIDRs of networkPolicy.kubeApiServer.to, comma-separated: each workload's policy admits them. */}}
{{- define "cr.apiServerCidrs" -}}
{{- $cidrs := list -}}
{{- range .Values.networkPolicy.kubeApiServer.to }}{{ with .ipBlock }}{{ $cidrs = append $cidrs .cidr }}{{ end }}{{ end -}}
{{- join "," $cidrs -}}
{{- end -}}
