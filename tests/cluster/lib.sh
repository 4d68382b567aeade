# Shared by the scripts of tests/cluster: sourced, not run.

# A free loopback port: nothing answers on it now, and it is below the kernel's ephemeral range, so that no
# outgoing connection (kubectl's, a controller's) can hold it as its local port before the server binds it.
free_port() {
  local port low
  read -r low _ < /proc/sys/net/ipv4/ip_local_port_range
  ((low > 12000)) || low=32768
  for _ in $(seq 100); do
    port=$((10000 + RANDOM % (low - 10000)))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
  return 1
}

# start DIR NAME COMMAND...: in its own session (down.sh stops its whole process group), logs in DIR/logs/NAME.log,
# PID in DIR/pids/NAME, the command in DIR/commands/NAME (restart.sh runs it again).
start() {
  local dir=$1 name=$2
  shift 2
  mkdir -p "$dir/commands"
  printf '%q ' "$@" > "$dir/commands/$name"
  setsid "$@" >> "$dir/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$dir/pids/$name"
}

# wait_ready NAME URL: until URL answers (its certificate unchecked), while the process start() ran in $dir as NAME
# lives; fails with its log's tail if it exits or is not ready within 90 s.
wait_ready() {
  local process=$1 url=$2 deadline=$((SECONDS + 90))
  until curl -skf "$url" > /dev/null; do
    kill -0 "$(cat "$dir/pids/$process")" 2>/dev/null ||
      { echo "$process exited" >&2; tail -n 30 "$dir/logs/$process.log" >&2; return 1; }
    ((SECONDS < deadline)) ||
      { echo "$process not ready after 90 s" >&2; tail -n 30 "$dir/logs/$process.log" >&2; return 1; }
    sleep 0.5
  done
}

# apply_crds FILE|DIR...: server-side (some are over client-side apply's size limit), then wait until served. Uses
# the caller's $bin, $dir and $name (the log: DIR/logs/NAME-crds.log).
apply_crds() {
  local f log=$dir/logs/$name-crds.log kubectl=("$bin/kubectl" --kubeconfig "$dir/kubeconfig")
  for f in "$@"; do "${kubectl[@]}" apply --server-side --force-conflicts -f "$f" >> "$log"; done
  for _ in 1 2 3 4 5; do
    "${kubectl[@]}" wait --for condition=established --timeout 60s crd --all >> "$log" 2>&1 && return 0
    sleep 1
  done
  return 1
}

# with_mount WRAPPER SOURCE MOUNT_POINT BINARY: writes WRAPPER, which runs BINARY with SOURCE bind-mounted at
# MOUNT_POINT in a mount namespace of its own, as a Deployment's volume mount would put it at a path the program
# fixes. Only the empty mount point is made on the machine.
with_mount() {
  local wrapper=$1 source=$2 mount_point=$3 binary=$4
  mkdir -p "$mount_point"
  cat > "$wrapper" <<WRAPPER
#!/bin/sh
exec unshare --mount --propagation private sh -c 'mount --bind "\$0" $mount_point && exec "\$@"' \\
  "$source" "$binary" "\$@"
WRAPPER
  chmod +x "$wrapper"
}

# run_operator NAME DIR MODULE_DIR BINARY [CONFIG]: a controller-runtime operator beside the control plane of up.sh
# DIR, as its own manifests install it (see operator.sh). MODULE_DIR holds its go.mod and operator.conf (module,
# package, config_api, webhooks, crds: its CRD manifests, when the release needs its own over ../shared/crds, and
# reinvocation: its mutating webhooks' reinvocationPolicy, where its install offers one to set);
# CONFIG is more of its Configuration, as YAML. Logs in DIR/logs/NAME-controller.log.
run_operator() {
  local name=$1 dir=$2 module_dir=$3 binary=$4 config_extra=${5:-}
  local module package config_api webhooks crds="" reinvocation=""
  [[ -f $module_dir/operator.conf ]] || { echo "run_operator: no $module_dir/operator.conf" >&2; return 2; }
  source "$module_dir/operator.conf"
  local bin=${WM_CLUSTER_BIN:-$(dirname "${BASH_SOURCE[0]}")/../../build/cluster/bin}
  local kubectl=("$bin/kubectl" --kubeconfig "$dir/kubeconfig")
  local source_dir version webhook_port health_port ca
  source_dir=$(cd "$module_dir" && go list -m -f '{{.Dir}}' "$module")
  version=$(cd "$module_dir" && go list -m -f '{{.Version}}' "$module")

  [[ -z $crds ]] || apply_crds "$source_dir/$crds"
  webhook_port=$(free_port) && health_port=$(free_port)
  cat > "$dir/$name-config.yaml" <<CONFIG
apiVersion: $config_api
kind: Configuration
leaderElection: {leaderElect: false}
internalCertManagement: {enable: false}
webhook: {host: 127.0.0.1, port: $webhook_port, certDir: "$dir/pki/webhooks"}
metrics: {bindAddress: "0"}
health: {healthProbeBindAddress: "127.0.0.1:$health_port"}
$config_extra
CONFIG
  start "$dir" "$name-controller" "$binary" --config "$dir/$name-config.yaml" --kubeconfig "$dir/kubeconfig"

  ca=$(base64 -w0 < "$dir/pki/ca.crt")
  "${kubectl[@]}" kustomize "$source_dir/$webhooks" |
    "${kubectl[@]}" create --dry-run=client -o json -f - |
    jq --arg name "$name" --arg base "https://127.0.0.1:$webhook_port" --arg ca "$ca" --arg again "$reinvocation" '
      select(.kind | endswith("WebhookConfiguration"))
      | .metadata.name = $name + "-" + .metadata.name
      | .webhooks |= map(.clientConfig = {url: ($base + .clientConfig.service.path), caBundle: $ca})
      | if $again != "" and .kind == "MutatingWebhookConfiguration"
        then .webhooks |= map(.reinvocationPolicy = $again) else . end' |
    "${kubectl[@]}" apply --server-side -f - > "$dir/logs/$name-webhooks.log"

  wait_ready "$name-controller" "http://127.0.0.1:$health_port/readyz" || return 1
  echo "run_operator: $name $version ready (webhooks at 127.0.0.1:$webhook_port)" >&2
}
