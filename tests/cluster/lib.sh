# Shared by the scripts of tests/cluster: sourced, not run.

# A free loopback port: nothing answers on it now.
free_port() {
  local port
  for _ in $(seq 100); do
    port=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
  return 1
}

# start DIR NAME COMMAND...: in its own session (down.sh stops its whole process group), logs in DIR/logs/NAME.log,
# PID in DIR/pids/NAME.
start() {
  local dir=$1 name=$2
  shift 2
  setsid "$@" > "$dir/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$dir/pids/$name"
}
