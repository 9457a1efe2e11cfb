package contract

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

func TestCheckRejects(t *testing.T) {
	pos := jobs.Pos{File: "job.yaml", Line: 3, Col: 5}
	tests := map[string]struct {
		job  func() *jobs.Job
		opts Options
		err  error
		want string // in the message
	}{
		"unknown contract": {
			job:  func() *jobs.Job { return paiJob("j", paiRole("w", 1)) },
			opts: Options{User: "u", Contracts: []string{"horovod"}}, err: ErrUnknownContract, want: `"horovod"`},
		"user with ~": {
			job:  func() *jobs.Job { return paiJob("j", paiRole("w", 1)) },
			opts: Options{User: "a~b"}, err: ErrJob, want: "first '~'"},
		"empty user": {
			job:  func() *jobs.Job { return paiJob("j", paiRole("w", 1)) },
			opts: Options{}, err: ErrJob, want: "non-empty -user"},
		"converted names collide": {
			job:  func() *jobs.Job { return paiJob("j", paiRole("ps_1", 1), paiRole("ps1", 1)) },
			opts: Options{User: "u"}, err: ErrJob, want: `"ps1"`},
		"converted name empty": {
			job:  func() *jobs.Job { return paiJob("j", paiRole("_", 1)) },
			opts: Options{User: "u"}, err: ErrJob, want: "empty name"},
		"pai without http": {
			job: func() *jobs.Job {
				j := paiJob("j", paiRole("w", 1))
				j.Roles[0].Ports = j.Roles[0].Ports[:1]
				j.Roles[0].Pos = pos
				return j
			},
			opts: Options{User: "u"}, err: ErrJob, want: `job.yaml:3:5: Role lacks an OpenPAI port`},
		"NUL in job name": {
			job:  func() *jobs.Job { return paiJob("a\x00b", paiRole("w", 1)) },
			opts: Options{User: "u"}, err: ErrJob, want: "NUL"},
		"invalid UTF-8 user": {
			job:  func() *jobs.Job { return paiJob("j", paiRole("w", 1)) },
			opts: Options{User: "\xff"}, err: ErrJob, want: "UTF-8"},
		"= in a role name": {
			job:  func() *jobs.Job { return paiJob("j", paiRole("a=b", 1)) },
			opts: Options{User: "u"}, err: ErrJob, want: "'='"},
		"tf and uai": {
			job: func() *jobs.Job {
				j := paiJob("j", paiRole("w", 2, jobs.Port{Label: "p", Count: 2}))
				j.Contracts = []string{jobs.ContractTF, jobs.ContractUAI}
				return j
			}, err: ErrJob, want: "both set TF_CONFIG"},
		"uai with two roles": {
			job: func() *jobs.Job {
				j := paiJob("j", paiRole("a", 1), paiRole("b", 1))
				j.Contracts = []string{jobs.ContractUAI}
				return j
			}, err: ErrJob, want: "single-role"},
		"uai with one port under the uai label": {
			job: func() *jobs.Job {
				j := paiJob("j", paiRole("n", 3, jobs.Port{Label: "uai", Count: 1}))
				j.Contracts = []string{jobs.ContractUAI}
				return j
			}, err: ErrJob, want: "two ports"},
		"ps process without uai": {
			job:  func() *jobs.Job { return paiJob("j", paiRole("w", 2)) },
			opts: Options{User: "u", Process: ProcessPS}, err: ErrJob, want: "No parameter-server process"},
		"torch without a port": {
			job: func() *jobs.Job {
				j := paiJob("j", paiRole("w", 2))
				j.Contracts = []string{jobs.ContractTorch}
				return j
			}, err: ErrJob, want: "No master port"},
		"leinao label with 2 ports": {
			job: func() *jobs.Job {
				return &jobs.Job{Name: "j", Contracts: []string{jobs.ContractLeinao},
					Roles: []*jobs.Role{{Name: "w", Instances: 1, Ports: []jobs.Port{{Label: LeinaoLabel, Count: 2}}}}}
			}, err: ErrJob, want: "exactly 3"},
		"tf roles with one type": {
			job: func() *jobs.Job {
				j := paiJob("j", paiRole("Worker", 1), paiRole("worker", 1))
				j.Contracts = []string{jobs.ContractTF}
				return j
			}, err: ErrJob, want: `both become "worker"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			j := tc.job()
			_, err := Eval(j, SampleTopologyFor(j, tc.opts), jobs.TaskRef{Role: j.Roles[0].Name}, tc.opts)
			if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Eval: err = %v, want %v containing %q", err, tc.err, tc.want)
			}
			if _, err := Shell(j, tc.opts); !errors.Is(err, tc.err) && name != "ps process without uai" {
				t.Errorf("Shell: err = %v, want %v", err, tc.err)
			}
			if _, err := NomadTemplate(j, j.Roles[0].Name, "id", tc.opts); !errors.Is(err, tc.err) {
				t.Errorf("NomadTemplate: err = %v, want %v", err, tc.err)
			}
			if d := Check(j, tc.opts); !d.HasErrors() {
				t.Errorf("Check found nothing")
			}
		})
	}
}

func TestTopologyMismatch(t *testing.T) {
	j, good := paiExample()
	opts := Options{User: "alice"}
	clone := func(f func(*Topology)) Topology {
		t := Topology{}
		for _, r := range good.Roles {
			rt := RoleTopology{Name: r.Name}
			for _, tt := range r.Tasks {
				ps := map[string][]int{}
				for k, v := range tt.Ports {
					ps[k] = append([]int(nil), v...)
				}
				rt.Tasks = append(rt.Tasks, TaskTopology{Addr: tt.Addr, Ports: ps})
			}
			t.Roles = append(t.Roles, rt)
		}
		f(&t)
		return t
	}
	tests := map[string]Topology{
		"missing role":        clone(func(t *Topology) { t.Roles = t.Roles[:1] }),
		"renamed role":        clone(func(t *Topology) { t.Roles[0].Name = "PS" }),
		"missing task":        clone(func(t *Topology) { t.Roles[1].Tasks = t.Roles[1].Tasks[:1] }),
		"missing label":       clone(func(t *Topology) { delete(t.Roles[1].Tasks[0].Ports, "SynPort") }),
		"two ports for one":   clone(func(t *Topology) { t.Roles[1].Tasks[0].Ports["http"] = []int{1, 2} }),
		"port 0":              clone(func(t *Topology) { t.Roles[0].Tasks[0].Ports["ssh"] = []int{0} }),
		"address with quote":  clone(func(t *Topology) { t.Roles[0].Tasks[0].Addr = `10.0.0.1"` }),
		"address with space":  clone(func(t *Topology) { t.Roles[0].Tasks[0].Addr = "10.0.0.1 x" }),
		"empty address":       clone(func(t *Topology) { t.Roles[0].Tasks[0].Addr = "" }),
		"address with ${...}": clone(func(t *Topology) { t.Roles[0].Tasks[0].Addr = "${x}" }),
	}
	for name, topo := range tests {
		if _, err := Eval(j, topo, jobs.TaskRef{Role: "worker", Index: 1}, opts); !errors.Is(err, ErrTopology) {
			t.Errorf("%s: err = %v, want ErrTopology", name, err)
		}
	}
	for name, ref := range map[string]jobs.TaskRef{"unknown role": {Role: "x"}, "index too large": {Role: "worker", Index: 2}, "negative index": {Role: "ps", Index: -1}} {
		if _, err := Eval(j, good, ref, opts); !errors.Is(err, ErrTopology) {
			t.Errorf("%s: err = %v, want ErrTopology", name, err)
		}
	}
}

var serviceRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

func TestNomadServices(t *testing.T) {
	j, _ := paiExample()
	got := NomadServicesFor(j, "mnist-1", Options{})
	want := []string{"ps/ssh/ssh/mnist-1-ps-ssh-0", "ps/http/http/mnist-1-ps-http-0",
		"worker/SynPort/synport/", "worker/ssh/ssh/mnist-1-worker-ssh-0", "worker/http/http/mnist-1-worker-http-0"}
	if len(got) != len(want) {
		t.Fatalf("%d services, want %d: %+v", len(got), len(want), got)
	}
	for n, s := range got {
		w := strings.Split(want[n], "/")
		if s.Role != w[0] || s.Label != w[1] || s.PortLabel != w[2] || (w[3] != "" && s.Name != w[3]) || s.Provider != "nomad" || len(s.Tags) != 1 || s.Tags[0] != "idx-${NOMAD_ALLOC_INDEX}" {
			t.Errorf("service %d = %+v, want %s", n, s, want[n])
		}
	}
	// SynPort is upper case: the name is lower-cased and gets a hash so that
	// no other label can map to it.
	if !strings.HasPrefix(got[2].Name, "mnist-1-worker-synport-0-") {
		t.Errorf("service name %q", got[2].Name)
	}

	// Odd names: long, dotted, tilde, a role without ports.
	long := strings.Repeat("verylongrole", 8)
	odd := &jobs.Job{Name: "j", Roles: []*jobs.Role{
		{Name: "a.b", Instances: 1, Ports: []jobs.Port{{Label: "x~y", Count: 2}, {Label: "x.y", Count: 1}}},
		{Name: "a~b", Instances: 1, Ports: []jobs.Port{{Label: "p", Count: 1}}},
		{Name: long, Instances: 1},
	}}
	seen := map[string]bool{}
	for _, s := range NomadServicesFor(odd, "My_Job.v2", Options{}) {
		if !serviceRE.MatchString(s.Name) || seen[s.Name] {
			t.Errorf("service name %q invalid or repeated", s.Name)
		}
		seen[s.Name] = true
		if s.Role == long && (s.PortLabel != "" || s.Label != "") {
			t.Errorf("a role without ports gets an address-only service, got %+v", s)
		}
	}
	if len(seen) != 5 {
		t.Errorf("%d services, want 5", len(seen))
	}
}

func TestNomadLineLimit(t *testing.T) {
	j := &jobs.Job{Name: "huge", Contracts: []string{jobs.ContractTF},
		Roles: []*jobs.Role{{Name: "worker", ReplicaType: "worker", Instances: 3000, Ports: []jobs.Port{{Label: "tfjob-port", Count: 1, Implicit: true}}}}}
	if _, err := NomadTemplate(j, "worker", "huge", Options{}); !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), "TF_CONFIG") {
		t.Fatalf("err = %v, want TF_CONFIG too long for Nomad", err)
	}
	j.Roles[0].Instances = 500
	if _, err := NomadTemplate(j, "worker", "big", Options{}); err != nil {
		t.Fatalf("500 workers: %v", err)
	}
}

func TestNilAndEmptyJobs(t *testing.T) {
	if _, err := Eval(nil, Topology{}, jobs.TaskRef{}, Options{}); !errors.Is(err, ErrJob) {
		t.Errorf("Eval(nil) = %v", err)
	}
	if _, err := Shell(nil, Options{}); !errors.Is(err, ErrJob) {
		t.Errorf("Shell(nil) = %v", err)
	}
	if _, err := NomadTemplate(nil, "x", "id", Options{}); !errors.Is(err, ErrJob) {
		t.Errorf("NomadTemplate(nil) = %v", err)
	}
	if !Check(nil, Options{}).HasErrors() || NomadServices(nil, "id") != nil {
		t.Error("nil job accepted")
	}
	empty := &jobs.Job{Name: "e"}
	if _, err := Shell(empty, Options{}); !errors.Is(err, ErrJob) {
		t.Errorf("Shell(no roles) = %v", err)
	}
	// No contract at all: a valid, empty environment.
	j := paiJob("j", paiRole("w", 1))
	j.Contracts = nil
	env, err := Eval(j, SampleTopology(j), jobs.TaskRef{Role: "w"}, Options{})
	if err != nil || len(env) != 0 {
		t.Errorf("no contracts: %v, %v", env, err)
	}
}
