{{- define "workload-map.labels" -}}
app.kubernetes.io/name: workload-map
app.kubernetes.io/part-of: workload-map
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{- define "workload-map.selector" -}}
app.kubernetes.io/name: workload-map
{{- end }}

{{/* The kinds the catalog knows, as the kustomize base lists them; the running server adds a Karta's kinds. */}}
{{- define "workload-map.rules" -}}
{{- range $group, $resources := dict "jobset.x-k8s.io" (list "jobsets") "kubeflow.org" (list "pytorchjobs" "tfjobs" "xgboostjobs" "paddlejobs" "jaxjobs" "mpijobs" "notebooks") "ray.io" (list "rayclusters" "rayjobs" "rayservices") "serving.kserve.io" (list "inferenceservices" "llminferenceservices") "serving.knative.dev" (list "services") "apps.nvidia.com" (list "nimservices" "nimcaches") "leaderworkerset.x-k8s.io" (list "leaderworkersets") "disaggregatedset.x-k8s.io" (list "disaggregatedsets") "milvus.io" (list "milvuses") "grove.io" (list "podcliquesets") "agents.x-k8s.io" (list "sandboxes") "nvidia.com" (list "dynamographdeployments") "sparkoperator.k8s.io" (list "sparkapplications") "batch.volcano.sh" (list "jobs") "workload.codeflare.dev" (list "appwrappers") "trainer.kubeflow.org" (list "trainjobs") "argoproj.io" (list "workflows" "workflowtemplates" "cronworkflows") }}
- operations: [CREATE, UPDATE]
  apiGroups: [{{ $group | quote }}]
  apiVersions: ["*"]
  resources: {{ toJson $resources }}
{{- end }}
- operations: [CREATE, UPDATE]
  apiGroups: [""]
  apiVersions: [v1]
  resources: [pods]
- operations: [CREATE, UPDATE]
  apiGroups: [batch]
  apiVersions: [v1]
  resources: [jobs, cronjobs]
- operations: [CREATE, UPDATE]
  apiGroups: [apps]
  apiVersions: [v1]
  resources: [deployments, statefulsets, replicasets, daemonsets]
{{- end }}

{{- define "workload-map.namespaceSelector" -}}
{{- $selector := deepCopy .Values.webhook.namespaceSelector }}
{{- $expressions := default list $selector.matchExpressions }}
{{- $expressions = append $expressions (dict "key" "kubernetes.io/metadata.name" "operator" "NotIn" "values" (list "kube-system" .Release.Namespace)) }}
{{- $_ := set $selector "matchExpressions" $expressions }}
{{- toYaml $selector }}
{{- end }}
