# Sourced by tests/cluster/scheduler.sh: Kueue's controller manager as its manifests install it
# (config/default: the CRDs of config/components/crd, the webhooks of config/components/webhook), with the
# integrations of its shipped Configuration (config/components/manager/controller_manager_config.yaml), run by
# run_operator (lib.sh) like the workload operators. Kueue admits workloads; the pods are bound by kube-scheduler,
# which it needs beside it.
src=$(module_dir sigs.k8s.io/kueue)
"$here/scheduler.sh" default "$dir"
apply_crds "$src/config/components/crd/bases"
kubectl create namespace kueue-system --dry-run=client -o yaml | kubectl apply -f - > /dev/null
config_extra=$(sed -n '/^integrations:/,/^[a-z#]/p' "$src/config/components/manager/controller_manager_config.yaml" |
  sed '$d' | grep -v '^ *#')
[[ $config_extra == integrations:* ]] || { echo "scheduler.sh: no integrations in Kueue's shipped configuration" >&2; exit 1; }
run_operator kueue "$dir" "$scheduler_dir" "$bin/kueue-manager" "$config_extra"
