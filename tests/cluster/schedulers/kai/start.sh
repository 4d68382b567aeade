# Sourced by tests/cluster/scheduler.sh. KAI Scheduler cannot run here: the Go module proxy refuses its module at
# every version and under both of its paths (github.com/NVIDIA/KAI-scheduler, github.com/kai-scheduler/KAI-scheduler:
# 403 "This module version is not available", tried again on 2026-12-03), and no other source may be brought in.
# The KAI profile is tested as far as its CRDs (../shared/crds: scheduling.run.ai) and the other schedulers allow.
echo "scheduler.sh: KAI Scheduler is not buildable from the Go module proxy (see $scheduler_dir/start.sh)" >&2
exit 1
