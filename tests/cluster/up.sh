#!/usr/bin/env bash
# Starts a real control plane on loopback for tests: etcd, kube-apiserver and kube-controller-manager (garbage
# collector; node lifecycle; job, cronjob, deployment, replicaset, statefulset, namespace, service-account and root CA
# publisher controllers). No nodes and no scheduler: pods stay Pending, which is enough to read what they carry.
# tests/cluster/nodes.sh adds fake nodes (the node lifecycle controller lifts their not-ready taint once KWOK makes
# them Ready) and tests/cluster/scheduler.sh a scheduler.
#   tests/cluster/up.sh DIR
# WM_FEATURE_GATES: feature gates (k=v,...) for the API server, the controller manager and, through DIR/feature-gates,
# the schedulers scheduler.sh starts; with the API versions the gates need served (GenericWorkload:
# scheduling.k8s.io/v1beta1, kube-scheduler's gang scheduling).
# WM_KCM_QPS: the controller manager's API client rate (default 20, upstream's; the scale benchmark uses 100, as
# Kubernetes' own scalability tests do, so that the Job controller and the garbage collector keep up).
# DIR holds the state, the logs (DIR/logs), the PIDs (DIR/pids), self-made certificates (DIR/pki: a CA, the API
# server's serving certificate, the service-account key pair, an admin client certificate, a loopback serving
# certificate for operators' webhooks in DIR/pki/webhooks) and DIR/kubeconfig.
# Exits 0 once /readyz answers and the controller manager has made the default service account; on failure it
# stops what it started and prints the end of the logs. tests/cluster/down.sh DIR stops it.
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
bin=${WM_CLUSTER_BIN:-$here/../../build/cluster/bin}
for b in etcd kube-apiserver kube-controller-manager kubectl; do
  [[ -x $bin/$b ]] || { echo "up.sh: $bin/$b is missing: run tests/cluster/build.sh" >&2; exit 1; }
done
mkdir -p "$1"
dir=$(cd "$1" && pwd)
[[ -e $dir/pids ]] && { echo "up.sh: $dir/pids exists: a control plane may be running there (down.sh $dir)" >&2; exit 1; }
mkdir -p "$dir/pki" "$dir/logs" "$dir/pids"
mkdir -m 700 "$dir/etcd"

fail() {
  echo "up.sh: $*" >&2
  for log in "$dir"/logs/*.log; do echo "--- $log" >&2; tail -n 25 "$log" >&2; done
  "$here/down.sh" "$dir" >&2 || true
  exit 1
}

# --- certificates -----------------------------------------------------------------------------------------
pki=$dir/pki
openssl_quiet() { openssl "$@" 2>/dev/null; }
openssl_quiet req -x509 -newkey rsa:2048 -nodes -days 3 -subj "/CN=workload-map-test-ca" \
  -keyout "$pki/ca.key" -out "$pki/ca.crt"
issue() {  # issue NAME SUBJECT [SAN]
  local name=$1 subject=$2 san=${3:-}
  openssl_quiet req -newkey rsa:2048 -nodes -subj "$subject" -keyout "$pki/$name.key" -out "$pki/$name.csr"
  local ext=$pki/$name.ext
  if [[ -n $san ]]; then
    printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$san" > "$ext"
  else
    printf 'extendedKeyUsage=clientAuth\n' > "$ext"
  fi
  openssl_quiet x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 3 -extfile "$ext" -out "$pki/$name.crt"
}
issue apiserver "/CN=kube-apiserver" \
  "IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
issue admin "/O=system:masters/CN=workload-map-test-admin"
# For the webhook servers of operators run beside the control plane (controller-runtime reads DIR/tls.{crt,key}).
issue webhooks "/CN=operator-webhooks" "IP:127.0.0.1,DNS:localhost"
mkdir -p "$pki/webhooks" && mv "$pki/webhooks.crt" "$pki/webhooks/tls.crt" && mv "$pki/webhooks.key" "$pki/webhooks/tls.key"
openssl_quiet genrsa -out "$pki/sa.key" 2048
openssl_quiet rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub"

gates=${WM_FEATURE_GATES:-}
gate_flags=() && runtime_config=()
controllers=garbage-collector-controller,node-lifecycle-controller,job-controller,cronjob-controller
controllers+=,deployment-controller,replicaset-controller,statefulset-controller,namespace-controller
controllers+=,serviceaccount-controller,serviceaccount-token-controller,root-ca-certificate-publisher-controller
if [[ -n $gates ]]; then
  gate_flags=(--feature-gates "$gates")
  # Kubernetes' own PodGroups carry the finalizer scheduling.k8s.io/podgroup-protection, which its controller lifts
  # once no pod uses the group: without it, a namespace with a PodGroup is never deleted.
  if [[ ,$gates, == *,GenericWorkload=true,* ]]; then
    runtime_config=(--runtime-config scheduling.k8s.io/v1beta1=true)
    controllers+=,podgroup-protection-controller
  fi
fi
printf '%s' "$gates" > "$dir/feature-gates"

etcd_port=$(free_port) && peer_port=$(free_port) && api_port=$(free_port) || fail "no free port"
server=https://127.0.0.1:$api_port

cat > "$dir/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: "$server", certificate-authority: "$pki/ca.crt"}
users:
- name: admin
  user: {client-certificate: "$pki/admin.crt", client-key: "$pki/admin.key"}
contexts:
- name: test
  context: {cluster: test, user: admin, namespace: default}
current-context: test
KUBECONFIG

# --- etcd ----------------------------------------------------------------------------------------------------
# Test data only: no fsync.
start "$dir" etcd "$bin/etcd" --name test --data-dir "$dir/etcd" --unsafe-no-fsync \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-cluster "test=http://127.0.0.1:$peer_port" --log-level warn

# --- kube-apiserver ------------------------------------------------------------------------------------------
# The service range only numbers Services: nothing here sends traffic to it. No endpoint reconciler: it refuses a
# loopback address for the `kubernetes` Service, which no pod here uses.
# Privileged containers allowed, as kubeadm's and the managed clusters' API servers have it: real manifests (JobSet's TPU
# examples) ask for them, and a Job the API server refuses makes no pods for a scheduler to group.
start "$dir" kube-apiserver "$bin/kube-apiserver" \
  --etcd-servers "http://127.0.0.1:$etcd_port" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
  --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
  --client-ca-file "$pki/ca.crt" --authorization-mode Node,RBAC \
  --service-account-issuer https://kubernetes.default.svc \
  --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
  --service-cluster-ip-range 10.0.0.0/24 --endpoint-reconciler-type none --profiling=false --v 1 \
  --allow-privileged=true "${gate_flags[@]}" "${runtime_config[@]}"

# --- kube-controller-manager ---------------------------------------------------------------------------------
# The root CA publisher puts kube-root-ca.crt in every namespace, as on any cluster: every pod's service account
# volume projects it, and KAI's scheduler will not place a pod whose ConfigMaps are missing.
start "$dir" kube-controller-manager "$bin/kube-controller-manager" \
  --kubeconfig "$dir/kubeconfig" --secure-port 0 --leader-elect=false \
  --controllers "$controllers" \
  --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
  --use-service-account-credentials=false --v 1 \
  --kube-api-qps "${WM_KCM_QPS:-20}" --kube-api-burst "$((${WM_KCM_QPS:-20} * 3 / 2))" "${gate_flags[@]}"

kubectl() { "$bin/kubectl" --kubeconfig "$dir/kubeconfig" "$@"; }
alive() { for p in "$dir"/pids/*; do kill -0 "$(cat "$p")" 2>/dev/null || fail "$(basename "$p") exited"; done; }

deadline=$((SECONDS + ${WM_CLUSTER_START_TIMEOUT:-120}))
until kubectl get --raw /readyz >/dev/null 2>&1; do
  alive
  ((SECONDS < deadline)) || fail "the API server is not ready after ${WM_CLUSTER_START_TIMEOUT:-120} s"
  sleep 0.5
done
# The controller manager is up once its service-account controller has made the default account.
until kubectl get serviceaccount default -n default >/dev/null 2>&1; do
  alive
  ((SECONDS < deadline)) || fail "the controller manager made no default service account"
  sleep 0.5
done
echo "$server" > "$dir/server"
echo "up.sh: control plane ready at $server (kubeconfig $dir/kubeconfig)" >&2
