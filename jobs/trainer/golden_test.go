package trainer_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/trainer"
	"github.com/jobshift/jobshift/translate/contract"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenJob is a TrainJob on runtime with two nodes, as users write them.
func goldenJob(runtime string) string {
	return `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: g
spec:
  runtimeRef:
    name: ` + runtime + `
  trainer:
    numNodes: 2
    env:
      - name: USER_VAR
        value: "1"
`
}

// TestGoldenRuntimes: per built-in runtime (kubeflow/trainer
// manifests/base/runtimes @v2.3.0) and per example, the roles the reader
// makes and every task's contract environment on the sample topology.
func TestGoldenRuntimes(t *testing.T) {
	cases := map[string][]byte{}
	for _, n := range trainer.BuiltinNames() {
		cases["builtin-"+n] = []byte(goldenJob(n))
	}
	for _, f := range []string{"trainjob-torch.yaml", "trainjob-mpi.yaml", "trainjob-xgboost.yaml", "trainjob-initializer.yaml"} {
		src, err := os.ReadFile(filepath.Join("..", "..", "examples", f))
		if err != nil {
			t.Fatal(err)
		}
		cases["example-"+strings.TrimSuffix(f, ".yaml")] = src
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			job, diags := trainer.Read(src, jobs.ReadOptions{Path: name + ".yaml"})
			var b strings.Builder
			for _, d := range diags {
				fmt.Fprintf(&b, "diag %s: %s\n", d.Subject.Filename, d.Summary)
			}
			if job != nil {
				describe(&b, job)
			}
			golden(t, name+".golden", b.String())
		})
	}
}

func describe(b *strings.Builder, job *jobs.Job) {
	tr := job.Extras.Trainer
	fmt.Fprintf(b, "contracts %v completion %s success %v any %v\n", job.Contracts, job.Completion.Kind, job.Completion.SuccessRoles, job.Completion.SuccessAny)
	fmt.Fprintf(b, "trainer policy=%q role=%s nodes=%d nproc=%q gpu=%d torchtune=%v envRoles=%v\n", tr.Policy, tr.TrainerRole, tr.NumNodes, tr.NprocPerNode, tr.GPUPerNode, tr.Torchtune, tr.EnvRoles)
	for _, r := range job.Roles {
		fmt.Fprintf(b, "role %s (%s) x%d image=%s command=%q args=%q restart=%s backoff=%d\n", r.Name, r.ReplicaType, r.Instances, r.Image, r.Command.Command, r.Command.Args, r.RestartPolicy, *r.BackoffLimit)
		for _, e := range r.Env {
			fmt.Fprintf(b, "  env %s=%s\n", e.Name, e.Value)
		}
		for _, p := range r.Ports {
			fmt.Fprintf(b, "  port %s %d\n", p.Label, p.Number)
		}
		for _, d := range r.DependsOn {
			fmt.Fprintf(b, "  dependsOn %s %s\n", d.Role, d.Status)
		}
		for _, f := range r.Files {
			fmt.Fprintf(b, "  file %s %o %q\n", f.Path, f.Mode, f.Content)
		}
	}
	envs, err := contract.EvalAll(job, contract.SampleTopology(job), contract.Options{})
	if err != nil {
		fmt.Fprintf(b, "contract error: %v\n", err)
		return
	}
	var refs []jobs.TaskRef
	for ref := range envs {
		refs = append(refs, ref)
	}
	sort.Slice(refs, func(i, j int) bool {
		return refs[i].Role < refs[j].Role || refs[i].Role == refs[j].Role && refs[i].Index < refs[j].Index
	})
	for _, ref := range refs {
		for _, v := range envs[ref] {
			fmt.Fprintf(b, "%s-%d: %s=%s\n", ref.Role, ref.Index, v.Name, v.Value)
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it, then review it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}
