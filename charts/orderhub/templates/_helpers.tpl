{{/* Names. */}}
{{- define "orderhub.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "orderhub.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Name of one controller's objects: <fullname>-<controller>. Call with (list $ "hub"). */}}
{{- define "orderhub.component" -}}
{{- printf "%s-%s" (include "orderhub.fullname" (index . 0)) (index . 1) -}}
{{- end -}}

{{- define "orderhub.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "orderhub.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Labels of one controller's objects. Call with (list $ "hub"). */}}
{{- define "orderhub.componentLabels" -}}
{{ include "orderhub.labels" (index . 0) }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{/* Selector labels of one controller's pods. Call with (list $ "hub"). */}}
{{- define "orderhub.selectorLabels" -}}
app.kubernetes.io/name: {{ include "orderhub.name" (index . 0) }}
app.kubernetes.io/instance: {{ (index . 0).Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{/* repository@digest when image.digest is set, else repository:tag (tag defaults to appVersion). */}}
{{- define "orderhub.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* Webhook object names (the hub's flags name the same). */}}
{{- define "orderhub.webhookService" -}}{{ include "orderhub.component" (list . "hub") }}-webhook{{- end -}}
{{- define "orderhub.webhookSecret" -}}{{ include "orderhub.component" (list . "hub") }}-webhook-cert{{- end -}}
{{- define "orderhub.webhookMutating" -}}{{ include "orderhub.component" (list . "hub") }}-mutating{{- end -}}
{{- define "orderhub.webhookValidating" -}}{{ include "orderhub.component" (list . "hub") }}-validating{{- end -}}

{{/* The metrics serving certificate of one controller (metrics.certManager):
its Secret, the name it is issued for (its metrics Service's), and the folder
it is mounted at (--metrics-cert-dir). Call with (list $ "hub"). */}}
{{- define "orderhub.metricsCertSecret" -}}{{ include "orderhub.component" . }}-metrics-cert{{- end -}}
{{- define "orderhub.metricsServerName" -}}{{ include "orderhub.component" . }}-metrics.{{ (index . 0).Release.Namespace }}.svc{{- end -}}
{{- define "orderhub.metricsCertDir" -}}/var/run/orderhub/metrics-certs{{- end -}}
{{- define "orderhub.metricsCertManaged" -}}{{ and .Values.metrics.enabled .Values.metrics.secure .Values.metrics.certManager.enabled }}{{- end -}}

{{/* The metrics certificate's volume mount and volume. Call with (list $ "hub"). */}}
{{- define "orderhub.metricsCertMount" -}}
{{- if eq (include "orderhub.metricsCertManaged" (index . 0)) "true" -}}
- {name: metrics-certs, mountPath: {{ include "orderhub.metricsCertDir" . }}, readOnly: true}
{{- end -}}
{{- end -}}
{{- define "orderhub.metricsCertVolume" -}}
{{- if eq (include "orderhub.metricsCertManaged" (index . 0)) "true" -}}
- name: metrics-certs
  secret:
    secretName: {{ include "orderhub.metricsCertSecret" . }}
{{- end -}}
{{- end -}}

{{/* The restricted Pod Security Standard. */}}
{{- define "orderhub.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "orderhub.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Flags every controller takes. Call with (list $ "hub" .Values.hub). */}}
{{- define "orderhub.managerArgs" -}}
{{- $ := index . 0 -}}
{{- $v := index . 2 -}}
- --leader-elect={{ $v.leaderElection }}
- --leader-election-namespace={{ $.Release.Namespace }}
- --health-probe-bind-address=:{{ $v.ports.health }}
{{- if $.Values.metrics.enabled }}
- --metrics-bind-address=:{{ $v.ports.metrics }}
- --metrics-secure={{ $.Values.metrics.secure }}
{{- if eq (include "orderhub.metricsCertManaged" $) "true" }}
- --metrics-cert-dir={{ include "orderhub.metricsCertDir" . }}
{{- end }}
{{- else }}
- --metrics-bind-address=0
{{- end }}
- --zap-log-level={{ $.Values.logLevel }}
{{- end -}}

{{/* Container ports, probes and the /tmp volume mount every controller has. Call with (list $ .Values.hub). */}}
{{- define "orderhub.containerCommon" -}}
{{- $ := index . 0 -}}
{{- $v := index . 1 -}}
image: {{ include "orderhub.image" $ }}
imagePullPolicy: {{ $.Values.image.pullPolicy }}
securityContext:
  {{- include "orderhub.containerSecurityContext" $ | nindent 2 }}
resources:
  {{- toYaml $v.resources | nindent 2 }}
livenessProbe:
  httpGet: {path: /healthz, port: health}
  initialDelaySeconds: 5
  periodSeconds: 20
readinessProbe:
  httpGet: {path: /readyz, port: health}
  periodSeconds: 5
{{- end -}}

{{/* Pod-level settings every controller has. Call with (list $ .Values.hub "hub"). */}}
{{- define "orderhub.podCommon" -}}
{{- $ := index . 0 -}}
{{- $v := index . 1 -}}
serviceAccountName: {{ include "orderhub.component" (list $ (index . 2)) }}
automountServiceAccountToken: true
securityContext:
  {{- include "orderhub.podSecurityContext" $ | nindent 2 }}
{{- if $v.hostNetwork }}
hostNetwork: true
dnsPolicy: ClusterFirstWithHostNet
{{- end }}
{{- with $.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
terminationGracePeriodSeconds: 15
{{- end -}}

{{/* The Deployment's update strategy. A host-network pod binds its ports on the
node, so a surge pod cannot schedule beside the pod it replaces (the node's
ports are taken): host-network controllers replace their pods one at a time,
old pod first. Call with .Values.hub. */}}
{{- define "orderhub.strategy" -}}
strategy:
{{- if .hostNetwork }}
  type: RollingUpdate
  rollingUpdate: {maxSurge: 0, maxUnavailable: 1}
{{- else }}
  type: RollingUpdate
{{- end }}
{{- end -}}

{{/* Pod template metadata. Call with (list $ "hub"). */}}
{{- define "orderhub.podMetadata" -}}
{{- $ := index . 0 -}}
labels:
  {{- include "orderhub.selectorLabels" . | nindent 2 }}
  {{- with $.Values.podLabels }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- with $.Values.podAnnotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
