package kubeflow

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/internal/testcorpus"
	"github.com/jobshift/jobshift/jobs"
)

// mpiFacts is what TestMPICorpusFacts pins per file.
type mpiFacts struct {
	Launcher, Workers   int
	LauncherRestart     string
	WorkerRestart       string
	Clean               string
	Backoff             int // -1: unset
	Slots               int
	Impl, Agent, Suffix string
	WorkerGPU           int
	LauncherArgv        []string
}

// TestMPICorpusFacts pins, per generation, what the operator would have made
// of real files; the values are worked out by hand from the files and the
// defaults in mpijob.go's sources (not copied from the reader's output).
func TestMPICorpusFacts(t *testing.T) {
	dir := testcorpus.Dir(t)
	tests := map[string]mpiFacts{
		// v2beta1, Intel: launcher OnFailure by default, workers Never,
		// FQDN hosts in namespace "default".
		"mpijob/kubeflow-mpi-operator__examples-v2beta1-pi-pi-intel.yaml": {1, 2, "OnFailure", "Never", "Running", -1, 1, "Intel", "ssh", ".pi.default.svc", 0,
			[]string{"mpirun", "-n", "2", "/home/mpiuser/pi"}},
		// v2beta1 with template restartPolicy OnFailure (ignored) and
		// runPolicy.backoffLimit 20, 8 slots, 8 GPUs per worker.
		"mpijob/candonov-benchmarking__mpijob-efa.yaml": {1, 2, "OnFailure", "Never", "Running", 20, 8, "OpenMPI", "ssh", ".nccl-efa-tests.default.svc", 8, nil},
		// v1alpha2: backoffLimit 6 by default, workers a StatefulSet.
		"mpijob/kubeflow-mpi-operator__examples-v1alpha2-tensorflow-benchmarks-imagenet.yaml": {1, 2, "OnFailure", "Always", "Running", 6, 8, "OpenMPI", "kubexec", "", 8, nil},
		// v1: Never for both, top-level cleanPodPolicy.
		"mpijob/kubeflow-mpi-operator__examples-v1-tensorflow-benchmarks-tensorflow-benchmarks.yaml": {1, 2, "Never", "Never", "Running", -1, 1, "OpenMPI", "kubexec", "", 1, nil},
		// v1alpha1 replicas 2, 4 GPUs each: slots = the GPU limit, workers
		// sleep, the launcher loses its resources.
		"mpijob/kubeflow-examples__tensorflow-horovod-mpi-job.yaml": {1, 2, "OnFailure", "Always", "", 6, 4, "OpenMPI", "kubexec", "", 4, nil},
	}
	for rel, want := range tests {
		t.Run(rel, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, rel))
			if err != nil {
				t.Fatal(err)
			}
			job, diags := Read(src, jobs.ReadOptions{Path: rel, Lossy: true})
			if diags.HasErrors() || job == nil || job.Extras.MPI == nil {
				t.Fatalf("errors:\n%s", formatDiags(diags))
			}
			l, w := job.Role("launcher"), job.Role("worker")
			m := job.Extras.MPI
			got := mpiFacts{l.Instances, w.Instances, l.RestartPolicy, w.RestartPolicy, job.Retry.CleanPodPolicy, -1,
				m.SlotsPerWorker, m.Implementation, m.RshAgent, m.HostSuffix, w.Resources.GPU, nil}
			if job.Retry.BackoffLimit != nil {
				got.Backoff = *job.Retry.BackoffLimit
			}
			if want.LauncherArgv != nil {
				got.LauncherArgv = append(append([]string(nil), l.Command.Command...), l.Command.Args...)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if job.Completion.Kind != jobs.CompletionMPI || len(job.Contracts) != 1 || job.Contracts[0] != jobs.ContractMPI {
				t.Errorf("completion %q contracts %v", job.Completion.Kind, job.Contracts)
			}
		})
	}
}
