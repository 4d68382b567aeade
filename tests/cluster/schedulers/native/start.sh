# Sourced by tests/cluster/scheduler.sh: Kubernetes' own gang scheduling, which is kube-scheduler itself with the
# GenericWorkload feature gate (its GangScheduling plugin joins the default profile then: kubernetes v1.37
# pkg/scheduler/apis/config/v1/default_plugins.go applyFeatureGates). The control plane must run with the gate too
# (up.sh WM_FEATURE_GATES=GenericWorkload=true): the API server serves PodGroups and keeps spec.schedulingGroup only
# then. It is the bed's one default-scheduler, so it is the `default` scheduler, started here if it is not yet.
gates=$(cat "$dir/feature-gates" 2>/dev/null || true)
if [[ ,$gates, != *,GenericWorkload=true,* ]]; then
  echo "scheduler.sh native: the control plane in $dir runs without GenericWorkload=true (up.sh WM_FEATURE_GATES)" >&2
  exit 1
fi
if [[ ! -f $dir/schedulers/default ]]; then
  scheduler_dir=$here/schedulers/default
  source "$scheduler_dir/start.sh"
  touch "$dir/schedulers/default"
fi
