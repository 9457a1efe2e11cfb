package examples_test

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// kindExamples are the XGBoostJob, PaddleJob and JAXJob examples: each task
// prints the operator variables it was given ("env NAME=VALUE").
var kindExamples = map[string]struct {
	label, addrVar, portVar string // where the rendezvous task's address and port show
	needs                   string // a Python module the example imports
}{
	"xgboostjob-iris.yaml":      {"xgboostjob-port", "MASTER_ADDR", "MASTER_PORT", "xgboost"},
	"paddlejob-collective.yaml": {"master", "PADDLE_MASTER", "", ""},
	"jaxjob-coordinator.yaml":   {"jaxjob-port", "COORDINATOR_ADDRESS", "COORDINATOR_PORT", ""},
	"mxjob-ps.yaml":             {"mxjob-port", "DMLC_PS_ROOT_URI", "DMLC_PS_ROOT_PORT", ""},
}

// TestKindExamples runs each example to success and compares every task's
// environment with the oracle's on the topology the tasks saw (the local
// address, and the ports of the tasks the contract names).
func TestKindExamples(t *testing.T) {
	for file, k := range kindExamples {
		t.Run(file, func(t *testing.T) {
			if k.needs != "" && exec.Command("/usr/bin/python3", "-c", "import "+k.needs).Run() != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("python3-%s is required in CI", k.needs)
				}
				t.Skipf("no python3-%s", k.needs)
			}
			o := run(t, file, taskEnv())
			if o.res.Phase != completion.PhaseSucceeded || o.res.ExitCode != 0 || o.res.Attempts != 1 {
				t.Fatalf("result = %+v, want succeeded, exit code 0, 1 attempt", o.res)
			}
			job, diags := load.Load(filepath.Join("..", "examples", file), jobs.ReadOptions{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			seen := map[jobs.TaskRef]map[string]string{}
			for _, r := range job.Roles {
				for i := range r.Instances {
					b, err := os.ReadFile(filepath.Join(o.dir, r.Name+"-"+strconv.Itoa(i), "attempt-1", "stdout"))
					if err != nil {
						t.Fatal(err)
					}
					env := map[string]string{}
					for _, line := range strings.Split(string(b), "\n") {
						if kv, ok := strings.CutPrefix(line, "env "); ok {
							n, v, _ := strings.Cut(kv, "=")
							env[n] = v
						}
					}
					seen[jobs.TaskRef{Role: r.Name, Index: i}] = env
				}
			}
			topo := observedTopology(t, job, seen, k.label, k.addrVar, k.portVar)
			for ref, got := range seen {
				want, err := contract.Eval(job, topo, ref, contract.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want.Map(), got); diff != "" {
					t.Errorf("%s-%d: environment (-oracle +task):\n%s", ref.Role, ref.Index, diff)
				}
			}
		})
	}
}

// observedTopology is the topology as the first task saw it: every task at
// the rendezvous address (one machine), the rendezvous task (task 0 of the
// role the contract reads) with the port it printed, each XGBoost worker
// with the WORKER_PORT it printed (its own); ports the contracts do not
// read are 1.
func observedTopology(t *testing.T, job *jobs.Job, seen map[jobs.TaskRef]map[string]string, label, addrVar, portVar string) contract.Topology {
	first := seen[jobs.TaskRef{Role: job.Roles[0].Name}]
	if mx := first["MX_CONFIG"]; mx != "" {
		return mxTopology(t, job, mx, label)
	}
	addr, port := first[addrVar], first[portVar]
	if portVar == "" {
		var err error
		if addr, port, err = net.SplitHostPort(addr); err != nil {
			t.Fatal(err)
		}
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		t.Fatalf("%s=%q: %v", portVar, port, err)
	}
	var topo contract.Topology
	for k, r := range job.Roles {
		rt := contract.RoleTopology{Name: r.Name}
		for i := range r.Instances {
			tp := 1
			switch {
			case i == 0 && (k == 0 || r.ReplicaType == "master"):
				tp = p
			case r.ReplicaType == "worker" && seen[jobs.TaskRef{Role: r.Name, Index: i}]["WORKER_PORT"] != "":
				tp, _ = strconv.Atoi(seen[jobs.TaskRef{Role: r.Name, Index: i}]["WORKER_PORT"])
			}
			rt.Tasks = append(rt.Tasks, contract.TaskTopology{Addr: addr, Ports: map[string][]int{label: {tp}}})
		}
		topo.Roles = append(topo.Roles, rt)
	}
	return topo
}

// mxTopology is the topology MX_CONFIG's cluster names (every task's url
// and port).
func mxTopology(t *testing.T, job *jobs.Job, mx, label string) contract.Topology {
	var cfg struct {
		Cluster map[string][]struct {
			URL  string `json:"url"`
			Port int    `json:"port"`
		} `json:"cluster"`
	}
	if err := json.Unmarshal([]byte(mx), &cfg); err != nil {
		t.Fatalf("MX_CONFIG %q: %v", mx, err)
	}
	var topo contract.Topology
	for _, r := range job.Roles {
		rt := contract.RoleTopology{Name: r.Name}
		for _, h := range cfg.Cluster[r.ReplicaType] {
			rt.Tasks = append(rt.Tasks, contract.TaskTopology{Addr: h.URL, Ports: map[string][]int{label: {h.Port}}})
		}
		topo.Roles = append(topo.Roles, rt)
	}
	return topo
}

// TestPaddleStandInChecksPodIP: the Paddle stand-in's rendezvous task
// refuses a POD_IP_DUMMY that is not an address of its own (a pod IP is;
// a target that gave the host's address to a bridged container would
// not), before serving or dialling anything.
func TestPaddleStandInChecksPodIP(t *testing.T) {
	const foreign = "203.0.113.7" // TEST-NET-3: never a local address
	cmd := exec.Command("python3", "rendezvous.py", "paddle")
	cmd.Env = append(os.Environ(), "POD_IP_DUMMY="+foreign, "PADDLE_MASTER="+foreign+":29400",
		"PADDLE_NNODES=2", "PADDLE_JOB_ID=j")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "POD_IP_DUMMY="+foreign+" is not an address of this task") {
		t.Errorf("err %v, output:\n%s\nwant a refusal of POD_IP_DUMMY", err, out)
	}
}
