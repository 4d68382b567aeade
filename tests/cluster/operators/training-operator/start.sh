# Sourced by tests/cluster/operator.sh: Kubeflow's training-operator as manifests/overlays/standalone installs it
# (namespace kubeflow, MY_POD_NAMESPACE=kubeflow, the Secret training-operator-webhook-cert, and the
# ValidatingWebhookConfiguration validator.training-operator.kubeflow.org of manifests/base/webhook, whose CA its
# certificate rotator injects), with only clientConfig pointing at its loopback webhook server, as run_operator
# does for the others. Without --gang-scheduler-name, the default: the webhook's profile writes the gang.
# PyTorchJob, TFJob, XGBoostJob and PaddleJob: ../shared/crds holds PyTorchJob's CRD, the others come from this
# release's manifests/base/crds; its other kinds are off (the MPIJob of ../shared/crds is mpi-operator's v2beta1, which
# leaves no room for the training-operator's v1 under the same CRD name).
#
# Its rotator (open-policy-agent/cert-controller v0.10.1, rotator.go refreshCertIfNeeded) keeps the Secret's
# certificates while they verify: a CA for DNS name training-operator-ca and a server certificate for
# training-operator.kubeflow.svc. The API server here reaches webhooks on loopback, not through a Service, so the
# Secret is provisioned with such a pair whose server certificate also names 127.0.0.1, as a user provisions it
# with cert-manager. Its Deployment mounts the Secret at the webhook server's fixed certificate folder,
# /tmp/k8s-webhook-server/serving-certs (manifests/base/deployment.yaml), and the rotator waits for the files there:
# here that folder is a bind mount of the pair's, in a mount namespace of the operator's own.
kubectl=("$bin/kubectl" --kubeconfig "$dir/kubeconfig")
source_dir=$(cd "$here/operators/training-operator" && go list -m -f '{{.Dir}}' github.com/kubeflow/training-operator)
pki=$dir/pki/training-operator
mkdir -p "$pki"
openssl req -x509 -newkey rsa:2048 -nodes -days 365 -subj "/CN=training-operator-ca" \
  -addext "subjectAltName=DNS:training-operator-ca" -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=training-operator.kubeflow.svc" \
  -keyout "$pki/tls.key" -out "$pki/tls.csr" 2>/dev/null
printf 'subjectAltName=DNS:training-operator.kubeflow.svc,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > "$pki/tls.ext"
# The rotator parses the CA key as PKCS #1 only (rotator.go buildArtifactsFromSecret).
openssl rsa -in "$pki/ca.key" -traditional -out "$pki/ca.key" 2>/dev/null
openssl x509 -req -in "$pki/tls.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 365 \
  -extfile "$pki/tls.ext" -out "$pki/tls.crt" 2>/dev/null
apply_crds "$source_dir/manifests/base/crds/kubeflow.org_tfjobs.yaml" \
  "$source_dir/manifests/base/crds/kubeflow.org_xgboostjobs.yaml" \
  "$source_dir/manifests/base/crds/kubeflow.org_paddlejobs.yaml"
"${kubectl[@]}" create namespace kubeflow --dry-run=client -o yaml | "${kubectl[@]}" apply -f - > /dev/null
"${kubectl[@]}" create secret generic training-operator-webhook-cert -n kubeflow --from-file="$pki/ca.crt" \
  --from-file="$pki/ca.key" --from-file="$pki/tls.crt" --from-file="$pki/tls.key" > /dev/null

webhook_port=$(free_port) && health=$(free_port)
"${kubectl[@]}" kustomize "$source_dir/manifests/base/webhook" |
  "${kubectl[@]}" create --dry-run=client -o json -f - |
  jq --arg base "https://127.0.0.1:$webhook_port" '
    .webhooks |= map(.clientConfig = {url: ($base + .clientConfig.service.path)})' |
  "${kubectl[@]}" apply --server-side -f - > "$dir/logs/training-operator-webhooks.log"
with_mount "$dir/training-operator.sh" "$pki" /tmp/k8s-webhook-server/serving-certs \
  "$bin/training-operator-controller"
MY_POD_NAMESPACE=kubeflow start "$dir" training-operator-controller "$dir/training-operator.sh" \
  --kubeconfig "$dir/kubeconfig" --enable-scheme=pytorchjob --enable-scheme=tfjob --enable-scheme=xgboostjob \
  --enable-scheme=paddlejob \
  --webhook-server-port="$webhook_port" \
  --metrics-bind-address=0 --health-probe-bind-address="127.0.0.1:$health"

wait_ready training-operator-controller "http://127.0.0.1:$health/readyz"
echo "operator.sh: training-operator ready (webhooks at 127.0.0.1:$webhook_port)" >&2
