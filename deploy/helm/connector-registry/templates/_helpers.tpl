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

{{- define "cr.image" -}}
{{- printf "%s:%s" .repository (.tag | default $.appVersion) -}}
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
{{- define "cr.workloadNamespace" -}}
{{- .Values.stdio.namespace | default .Release.Namespace -}}
{{- end -}}
{{- define "cr.workerServiceAccount" -}}{{ include "cr.fullname" . }}-worker{{- end -}}

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
