package kubeflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// FuzzReadMPIJob feeds MPIJob-shaped bytes to Read, seeded from the MPIJob
// testdata of every generation and the corpus's MPIJobs (FuzzRead mutates
// all Kubeflow kinds; this one stays near MPIJob's fields). Properties:
// no panic; every diagnostic is located; an MPIJob read without errors
// has its MPI settings, the launcher deciding completion, exactly one
// launcher task, at least one worker task, and the mpi contract.
func FuzzReadMPIJob(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/mpi*.yaml")
	wd, _ := os.Getwd()
	more, _ := filepath.Glob(filepath.Join(wd, "..", "..", "..", "shared", "corpus", "mpijob", "*"))
	for _, s := range append(seeds, more...) {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b, false)
			f.Add(b, true)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, lossy bool) {
		job, diags := Read(src, jobs.ReadOptions{Path: "fuzz.yaml", Lossy: lossy})
		for _, d := range diags {
			if d.Subject == nil || d.Subject.Start.Line < 1 {
				t.Fatalf("unlocated diagnostic %q", d.Summary)
			}
		}
		if diags.HasErrors() || job == nil || job.Source.Format != jobs.FormatMPIJob {
			return
		}
		m := job.Extras.MPI
		if m == nil {
			t.Fatal("an MPIJob without MPI settings")
		}
		if job.Completion.Kind != jobs.CompletionMPI {
			t.Fatalf("completion %q, want the launcher's (mpi)", job.Completion.Kind)
		}
		if len(job.Contracts) == 0 || job.Contracts[0] != jobs.ContractMPI {
			t.Fatalf("contracts %v, want mpi first", job.Contracts)
		}
		launchers, workers := 0, 0
		for _, r := range job.Roles {
			switch strings.ToLower(r.ReplicaType) {
			case "launcher":
				launchers += r.Instances
			case "worker":
				workers += r.Instances
			}
		}
		if launchers != 1 {
			t.Fatalf("%d launcher tasks, want 1", launchers)
		}
		if workers < 1 && job.Role("worker") != nil && job.Source.Version == "kubeflow.org/v2beta1" {
			t.Fatalf("a v2beta1 Worker with %d tasks read without error", workers)
		}
		if m.SlotsPerWorker < 0 || m.SlotsPerWorker > 1<<16 {
			t.Fatalf("slotsPerWorker %d", m.SlotsPerWorker)
		}
		switch m.Implementation {
		case "OpenMPI", "Intel", "MPICH":
		default:
			t.Fatalf("mpiImplementation %q", m.Implementation)
		}
	})
}
