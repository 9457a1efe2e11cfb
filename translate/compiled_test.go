package translate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestCompiled: what Build works out once for every target, per input
// form: the launch line as the platform ran it, the work-dir export, the
// ports with container ports, the processes and the resolved policy kind.
// The expected values are written from the platforms' documented behaviour
// (spec/pai.md §3, spec/kubeflow.md), not produced by the code.
func TestCompiled(t *testing.T) {
	cmd := func(kind jobs.CommandKind, script string, argv ...string) jobs.Command {
		c := jobs.Command{Kind: kind, Script: script}
		if len(argv) > 0 {
			c.Command, c.Args = argv[:1], argv[1:]
		}
		return c
	}
	type want struct {
		launch    Launch
		ports     []PortPlan
		processes []string
		kind      jobs.CompletionKind
	}
	cases := map[string]struct {
		job  *jobs.Job
		want want
	}{
		"pai v1: eval line, work dir, fixed ports stay fixed": {
			job: &jobs.Job{Name: "j", Source: jobs.Source{Format: jobs.FormatPAIv1}, Contracts: []string{jobs.ContractPAI},
				Roles: []*jobs.Role{{Name: "w", Instances: 1, Command: cmd(jobs.CommandEval, "python a.py && echo ok"),
					Ports: []jobs.Port{{Label: "http", Count: 2, BeginAt: 8080}}}}},
			want: want{
				launch:    Launch{Argv: []string{"bash", "-c", `eval "$1" || exit $?`, "_", "python a.py && echo ok"}, WorkDir: true, Kind: jobs.CommandEval},
				ports:     []PortPlan{{Port: jobs.Port{Label: "http", Count: 2, BeginAt: 8080}}},
				processes: []string{""}, kind: jobs.CompletionPAI},
		},
		"pai v2: user.sh under errexit/nounset/pipefail": {
			job: &jobs.Job{Name: "j", Source: jobs.Source{Format: jobs.FormatPAIv2}, Contracts: []string{jobs.ContractPAI},
				Roles: []*jobs.Role{{Name: "w", Instances: 1, Command: cmd(jobs.CommandBashScript, "echo 1\necho 2\n")}}},
			want: want{
				launch:    Launch{Argv: []string{"bash", "-c", "set -o errexit -o nounset -o pipefail\necho 1\necho 2\n", "user.sh"}, WorkDir: true, Kind: jobs.CommandBashScript},
				processes: []string{""}, kind: jobs.CompletionPAI},
		},
		"leinao: three container ports 10001..10003": {
			job: &jobs.Job{Name: "j", Source: jobs.Source{Format: jobs.FormatPAIv1, Dialect: "leinao"}, Contracts: []string{jobs.ContractLeinao},
				Roles: []*jobs.Role{{Name: "w", Instances: 2, Command: cmd(jobs.CommandEval, "x")}}},
			want: want{
				launch:    Launch{Argv: []string{"bash", "-c", `eval "$1" || exit $?`, "_", "x"}, WorkDir: true, Kind: jobs.CommandEval},
				ports:     []PortPlan{{Port: jobs.Port{Label: "leinao", Count: 3, Implicit: true}, Container: 10001}},
				processes: []string{""}, kind: jobs.CompletionPAI},
		},
		"uai: a parameter server beside each node": {
			job: &jobs.Job{Name: "j", Source: jobs.Source{Format: jobs.FormatPAIv2}, Contracts: []string{jobs.ContractUAI},
				Roles: []*jobs.Role{{Name: "n", Instances: 2, Command: cmd(jobs.CommandBashScript, "x")}}},
			want: want{
				launch:    Launch{Argv: []string{"bash", "-c", "set -o errexit -o nounset -o pipefail\nx", "user.sh"}, Kind: jobs.CommandBashScript},
				ports:     []PortPlan{{Port: jobs.Port{Label: "uai", Count: 2, Implicit: true}}},
				processes: []string{"", "ps"}, kind: jobs.CompletionPAI},
		},
		"pytorchjob: argv unchanged, no work dir; kind from the format": {
			job: &jobs.Job{Name: "j", Source: jobs.Source{Format: jobs.FormatPyTorchJob}, Contracts: []string{jobs.ContractTorch},
				Roles: []*jobs.Role{{Name: "master", ReplicaType: "Master", Instances: 1, Command: cmd(jobs.CommandArgv, "", "python", "-c", "print('$x')"),
					Ports: []jobs.Port{{Label: "pytorchjob-port", Count: 1, Number: 23456, Implicit: true}}}}},
			want: want{
				launch:    Launch{Argv: []string{"python", "-c", "print('$x')"}, Kind: jobs.CommandArgv},
				ports:     []PortPlan{{Port: jobs.Port{Label: "pytorchjob-port", Count: 1, Number: 23456, Implicit: true}}},
				processes: []string{""}, kind: jobs.CompletionPyTorch},
		},
		"tfjob without command: the image's ENTRYPOINT with args": {
			job: &jobs.Job{Name: "j", Source: jobs.Source{Format: jobs.FormatTFJob}, Completion: jobs.Completion{Kind: jobs.CompletionTF},
				Roles: []*jobs.Role{{Name: "worker", Instances: 1, Command: jobs.Command{Kind: jobs.CommandArgv, Args: []string{"--steps", "10"}}}}},
			want: want{
				launch:    Launch{Argv: []string{"--steps", "10"}, Entrypoint: true, Kind: jobs.CommandArgv},
				processes: []string{""}, kind: jobs.CompletionTF},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// by hand, not Build: these jobs lack the ports the readers
			// add, which Build's contract checks would refuse
			p := &Plan{Job: tc.job, User: "alice", Site: &siteconfig.Config{}}
			c := p.Compiled()
			r := c.Roles[0]
			got := want{launch: r.Launch, ports: r.Ports, processes: c.Processes, kind: c.Policy.Kind}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("compiled (-want +got):\n%s", diff)
			}
			if c.Contract.User != "alice" {
				t.Errorf("contract user %q, want alice", c.Contract.User)
			}
		})
	}
}

// TestWithWorkDir: the export goes right before the user command of a
// bash -c line, and nowhere else.
func TestWithWorkDir(t *testing.T) {
	l := Launch{WorkDir: true}
	got := l.WithWorkDir([]string{"bash", "-c", "echo $PAI_WORK_DIR", "user.sh"})
	want := []string{"bash", "-c", "PAI_WORK_DIR=$PWD\n# shellcheck disable=SC3013\n[ \"$PAI_WORK_DIR\" -ef . ] 2>/dev/null || PAI_WORK_DIR=$(pwd)\nexport PAI_WORK_DIR\necho $PAI_WORK_DIR", "user.sh"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	argv := []string{"python", "a.py"}
	if diff := cmp.Diff(argv, l.WithWorkDir(argv)); diff != "" {
		t.Errorf("an argv command changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[:2], (Launch{}).WithWorkDir(want[:2])); diff != "" {
		t.Errorf("without WorkDir (-want +got):\n%s", diff)
	}
}

// TestCompiledPolicyRoundTrip: the policy Build resolves judges like the
// job it came from (the Nomad controller and the Slurm data rely on it).
func TestCompiledPolicyRoundTrip(t *testing.T) {
	one := 1
	job := &jobs.Job{Name: "j", Source: jobs.Source{Format: jobs.FormatPAIv2}, Completion: jobs.Completion{Kind: jobs.CompletionPAI},
		Roles: []*jobs.Role{{Name: "ps", Instances: 1}, {Name: "worker", Instances: 2, MinFailed: &one}}}
	p, _ := Build(job, nil, nil, "u")
	tasks := []completion.Task{{TaskRef: jobs.TaskRef{Role: "worker", Index: 1}, State: completion.Failed, ExitCode: 3, Seq: 1}}
	if diff := cmp.Diff(completion.Decide(job, tasks), completion.Decide(p.Compiled().Policy.Job(), tasks)); diff != "" {
		t.Errorf("verdict differs (-job +policy):\n%s", diff)
	}
}

// TestCompiledFollowsTheJob: a plan's compiled part is never stale. A
// change to the job, the contracts or the user after Build shows in the
// next Compiled(); and -contract = (no contract) stays no contract
// instead of falling back to the job's defaults.
func TestCompiledFollowsTheJob(t *testing.T) {
	job := func() *jobs.Job {
		return &jobs.Job{Name: "j", Source: jobs.Source{Format: jobs.FormatPAIv2}, Contracts: []string{jobs.ContractPAI},
			Roles: []*jobs.Role{{Name: "w", Instances: 2, Command: jobs.Command{Kind: jobs.CommandBashScript, Script: "a\n"},
				Resources: jobs.Resources{CPUMilli: 1000, MemoryMiB: 512},
				Ports:     []jobs.Port{{Label: "http", Count: 1, Implicit: true}, {Label: "ssh", Count: 1, Implicit: true}}}}}
	}
	cases := map[string]struct {
		contracts []string // -contract values
		change    func(p *Plan)
		argv2     string // the role's launch script after the change
		contract  []string
		workDir   bool
		instances int
	}{
		"unchanged": {nil, func(*Plan) {}, "set -o errexit -o nounset -o pipefail\na\n", []string{"pai"}, true, 2},
		"command edited": {nil, func(p *Plan) { p.Job.Roles[0].Command.Script = "b\n" },
			"set -o errexit -o nounset -o pipefail\nb\n", []string{"pai"}, true, 2},
		"instances edited": {nil, func(p *Plan) { p.Job.Roles[0].Instances = 5 },
			"set -o errexit -o nounset -o pipefail\na\n", []string{"pai"}, true, 5},
		"contracts replaced": {nil, func(p *Plan) { p.Contracts = []string{jobs.ContractTF} },
			"set -o errexit -o nounset -o pipefail\na\n", []string{"tf"}, false, 2},
		"-contract = is none": {[]string{"="}, func(*Plan) {},
			"set -o errexit -o nounset -o pipefail\na\n", nil, false, 2},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, diags := Build(job(), nil, tc.contracts, "u")
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			_ = p.Compiled() // compiled before the change
			tc.change(p)
			c := p.Compiled()
			if got := c.Roles[0].Launch.Argv[2]; got != tc.argv2 {
				t.Errorf("launch script %q, want %q", got, tc.argv2)
			}
			if d := cmp.Diff(tc.contract, c.Contract.Contracts); d != "" {
				t.Errorf("contracts (-want +got):\n%s", d)
			}
			if c.WorkDir != tc.workDir {
				t.Errorf("WorkDir %v, want %v", c.WorkDir, tc.workDir)
			}
			if n := c.Policy.TaskCount(); n != tc.instances {
				t.Errorf("policy task count %d, want %d", n, tc.instances)
			}
		})
	}
}

// TestBuildReturnsContractDiagnostics: Build reports what the contracts
// refuse, located, as every driver would (a tf contract on a role without
// any port to serve TF_CONFIG on is fine; a LeinaoPAI role with a
// two-port leinao label is not: LeinaoPAI mapped exactly three).
func TestBuildReturnsContractDiagnostics(t *testing.T) {
	at := jobs.Pos{File: "j.json", Line: 7, Col: 3}
	j := &jobs.Job{Name: "j", Source: jobs.Source{Format: jobs.FormatPAIv1, Dialect: "leinao", Path: "j.json"}, Contracts: []string{jobs.ContractLeinao},
		Roles: []*jobs.Role{{Name: "w", Instances: 1, Command: jobs.Command{Kind: jobs.CommandEval, Script: "x"},
			Ports: []jobs.Port{{Label: "leinao", Count: 2, Pos: at}}}}}
	_, diags := Build(j, nil, nil, "u")
	if !diags.HasErrors() {
		t.Fatalf("no error; diags %v", diags)
	}
	d := diags[len(diags)-1]
	if d.Summary != "LeinaoPAI needs three ports" || d.Subject == nil || d.Subject.Filename != "j.json" || d.Subject.Start.Line != 7 || d.Subject.Start.Column != 3 {
		t.Errorf("got %s at %v, want the leinao port check at j.json:7:3", d.Summary, d.Subject)
	}
	// The same job with no contract at all (-contract =) is fine.
	if _, diags := Build(j, nil, []string{"="}, "u"); diags.HasErrors() {
		t.Errorf("-contract =: %v", diags)
	}
}

// BenchmarkCompiledCached is the cost of Plan.Compiled when nothing
// changed: the fingerprint (a hash of the job's encoding), paid by every
// call a driver makes.
func BenchmarkCompiledCached(b *testing.B) {
	p, diags := Build(testJob(), nil, nil, "u")
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	b.ReportAllocs()
	for b.Loop() {
		p.Compiled()
	}
}

// TestPlanContract: the compiled contract is kept per options (one
// compile per plan and target), and compiled again once the job changed.
func TestPlanContract(t *testing.T) {
	p, diags := Build(testJob(), nil, nil, "u")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	a, err := p.Contract(p.Compiled().ContractOn("/a"))
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := p.Contract(p.Compiled().ContractOn("/a")); again != a {
		t.Error("the same options compiled twice")
	}
	if other, _ := p.Contract(p.Compiled().ContractOn("/b")); other == a {
		t.Error("other options share a compile")
	}
	p.Job.Roles[0].Instances++
	if changed, _ := p.Contract(p.Compiled().ContractOn("/a")); changed == a || changed.Job() != p.Job {
		t.Error("a changed job kept its old contract")
	}
}

// TestCompiledHold: a held plan keeps its compiled part without checking
// the fingerprint (a change while held is the holder's broken promise,
// so it does not show); once released, the change shows again.
func TestCompiledHold(t *testing.T) {
	j := &jobs.Job{Name: "j", Source: jobs.Source{Format: jobs.FormatPAIv2}, Contracts: []string{jobs.ContractPAI},
		Roles: []*jobs.Role{{Name: "w", Instances: 2, Command: jobs.Command{Kind: jobs.CommandBashScript, Script: "a\n"},
			Resources: jobs.Resources{CPUMilli: 1000, MemoryMiB: 512},
			Ports:     []jobs.Port{{Label: "http", Count: 1, Implicit: true}, {Label: "ssh", Count: 1, Implicit: true}}}}}
	p, diags := Build(j, nil, nil, "u")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	release := p.Hold()
	held := p.Compiled()
	inner := p.Hold()
	p.Job.Roles[0].Instances = 5
	inner()
	inner() // a release twice counts once
	if p.Compiled() != held {
		t.Fatal("a held plan compiled again")
	}
	release()
	if n := p.Compiled().Policy.TaskCount(); n != 5 {
		t.Errorf("after release: task count %d, want 5", n)
	}
}
