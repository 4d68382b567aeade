// CRDs of operators that the test bed does not run, but whose objects workloads refer to (a TrainJob's runtimes),
// taken from their releases on the Go module proxy by tests/cluster/build.sh; no Go is built from here.
module workload-map.test/cluster/crds

go 1.24

require github.com/kubeflow/trainer/v2 v2.2.0
