# Sourced by tests/cluster/scheduler.sh: Kueue's controller manager as its manifests install it
# (config/default: the CRDs of config/components/crd, the webhooks of config/components/webhook), with the
# integrations of its shipped Configuration (config/components/manager/controller_manager_config.yaml), run by
# run_operator (lib.sh) like the workload operators. Kueue admits workloads; the pods are bound by kube-scheduler,
# which it needs beside it.
src=$(module_dir sigs.k8s.io/kueue)
"$here/scheduler.sh" default "$dir"
apply_crds "$src/config/components/crd/bases"
kubectl create namespace kueue-system --dry-run=client -o yaml | kubectl apply -f - > /dev/null
# The kubeflow.org/pytorchjob integration ships commented out; Kueue's guide to running a PyTorchJob
# (docs/tasks/run/kubeflow/pytorchjobs) has users enable it, as here, so that the corpus PyTorchJobs meet Kueue too.
config_extra=$(sed -n '/^integrations:/,/^[a-z#]/p' "$src/config/components/manager/controller_manager_config.yaml" |
  sed -e '$d' -e 's|^  # - "kubeflow.org/pytorchjob"|  - "kubeflow.org/pytorchjob"|' | grep -v '^ *#')
[[ $config_extra == integrations:* ]] || { echo "scheduler.sh: no integrations in Kueue's shipped configuration" >&2; exit 1; }
# The on-demand visibility API (listings of pending workloads, not admission) reads its certificate from another fixed
# path, /visibility; it is turned off rather than given a folder at the machine's root.
config_extra+=$'\nfeatureGates: {VisibilityOnDemand: false}'
# With its own certificate management off, Kueue reads its metrics certificate from a fixed path
# (cmd/kueue/main.go: /etc/kueue/metrics/certs), as its manifests mount it. Here that path is a bind mount of up.sh's
# certificate, in a mount namespace of Kueue's own; only the empty mount point is made on the machine.
with_mount "$dir/kueue-manager.sh" "$dir/pki/webhooks" /etc/kueue/metrics/certs "$bin/kueue-manager"
run_operator kueue "$dir" "$scheduler_dir" "$dir/kueue-manager.sh" "$config_extra"
