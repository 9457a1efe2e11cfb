package contract_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// job500 is a 500-task OpenPAI job (ps ×20, worker ×480, each with a
// SynPort plus ssh/http) that also asks for tf and torch. The corpus has no
// job this large (its largest has 20 replicas), so the shape is synthetic.
func job500() (*jobs.Job, contract.Options) {
	ports := func() []jobs.Port {
		return []jobs.Port{{Label: "SynPort", Count: 1}, {Label: "ssh", Count: 1, Implicit: true}, {Label: "http", Count: 1, Implicit: true}}
	}
	one := 1
	j := &jobs.Job{Name: "big", Source: jobs.Source{Format: jobs.FormatPAIv2},
		Contracts: []string{jobs.ContractPAI, jobs.ContractTF, jobs.ContractTorch},
		Roles: []*jobs.Role{
			{Name: "ps", Instances: 20, Ports: ports(), MinFailed: &one},
			{Name: "worker", Instances: 480, Ports: ports(), MinFailed: &one},
		}}
	return j, contract.Options{User: "alice"}
}

func BenchmarkEval500(b *testing.B) {
	j, opts := job500()
	topo := contract.SampleTopologyFor(j, opts)
	for b.Loop() {
		if _, err := contract.Eval(j, topo, jobs.TaskRef{Role: "worker", Index: 479}, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkShell500(b *testing.B) {
	j, opts := job500()
	for b.Loop() {
		if _, err := contract.Shell(j, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNomadTemplate500(b *testing.B) {
	j, opts := job500()
	for b.Loop() {
		for _, r := range j.Roles {
			if _, err := contract.NomadTemplate(j, r.Name, "big", opts); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkShellRun500Dash is the run-time cost on a node: dash checking
// the 500-task topology and exporting one task's contract.
func BenchmarkShellRun500Dash(b *testing.B) {
	dash, err := exec.LookPath("dash")
	if err != nil {
		b.Skip("no dash")
	}
	j, opts := job500()
	script, err := contract.Shell(j, opts)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "contract.sh")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		b.Fatal(err)
	}
	env := append(shellInput(j, contract.SampleTopologyFor(j, opts), opts, 1, 479, ""), "PATH="+os.Getenv("PATH"))
	b.ReportMetric(float64(len(script)), "script-bytes")
	for b.Loop() {
		cmd := exec.Command(dash, path, "true")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

func BenchmarkEvalAll500(b *testing.B) {
	j, opts := job500()
	topo := contract.SampleTopologyFor(j, opts)
	for b.Loop() {
		if _, err := contract.EvalAll(j, topo, opts); err != nil {
			b.Fatal(err)
		}
	}
}
