// Package nomad_test runs the examples and the corpus through the whole
// pipeline (load → plan → drivers/nomad) against a real Nomad agent.
package nomad_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

func TestMain(m *testing.M) {
	code := m.Run()
	drivertest.RemoveJobshift()
	agent.StopIfStarted()
	os.Exit(code)
}

func site() *siteconfig.Config {
	return &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec", CPUMHzPerCore: 100, BarrierTimeout: "2m"}}
}

func loadPlan(t *testing.T, path string, cfg *siteconfig.Config) *translate.Plan {
	t.Helper()
	return loadPlanContracts(t, path, cfg, nil)
}

// loadPlanContracts is loadPlan with -contract (nil: the job's defaults).
func loadPlanContracts(t *testing.T, path string, cfg *siteconfig.Config, contracts []string) *translate.Plan {
	t.Helper()
	job, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatalf("%s: %s", path, diags.Error())
	}
	p, diags := translate.Build(job, cfg, contracts, "alice")
	if diags.HasErrors() {
		t.Fatalf("%s: %s", path, diags.Error())
	}
	return p
}

// run submits the plan under a fresh job ID and watches it to its end.
func run(t *testing.T, p *translate.Plan) (*drivers.Result, string) {
	t.Helper()
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	p.Options["id"] = fmt.Sprintf("%s-%d", p.Job.Name, time.Now().UnixNano()%1e9)
	p.Options[nomad.OptWorkDir] = agent.Repo()
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	p.Options[nomad.OptWatched] = "true" // watched below, as jobshift run does
	h, err := d.Submit(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	events, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	var final *drivers.Result
	for e := range events {
		if e.Task != nil {
			t.Logf("%s-%d %s %d %s", e.Task.Role, e.Task.Index, e.State, e.ExitCode, e.Message)
		} else {
			t.Logf("job: %s", e.Message)
		}
		if e.Final != nil {
			final = e.Final
		}
	}
	if final == nil {
		t.Fatalf("job %s: no result", h.ID)
	}
	return final, h.ID
}

// topology reads where every task actually ran, from the allocations.
func topology(t *testing.T, c *api.Client, p *translate.Plan, id string) contract.Topology {
	t.Helper()
	allocs, _, err := c.Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	svcs := contract.NomadServicesFor(p.Job, id, contract.Options{User: p.User, Contracts: p.Contracts})
	topo := contract.Topology{}
	for _, r := range p.Job.Roles {
		topo.Roles = append(topo.Roles, contract.RoleTopology{Name: r.Name, Tasks: make([]contract.TaskTopology, r.Instances)})
	}
	for _, a := range allocs {
		full, _, err := c.Allocations().Info(a.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		i := strings.LastIndexByte(a.Name, '[')
		var idx int
		fmt.Sscanf(a.Name[i:], "[%d]", &idx)
		role := full.Job.LookupTaskGroup(a.TaskGroup).Meta[nomad.MetaRole]
		for k := range topo.Roles {
			if topo.Roles[k].Name != role {
				continue
			}
			tt := contract.TaskTopology{Ports: map[string][]int{}}
			for _, port := range full.AllocatedResources.Shared.Ports {
				tt.Addr = port.HostIP
				for _, s := range svcs {
					if s.Role == role && s.PortLabel == port.Label {
						tt.Ports[s.Label] = append(tt.Ports[s.Label], port.Value)
					}
				}
			}
			if tt.Addr == "" && len(full.AllocatedResources.Shared.Networks) > 0 {
				tt.Addr = full.AllocatedResources.Shared.Networks[0].IP
			}
			topo.Roles[k].Tasks[idx] = tt
		}
	}
	return topo
}

// printsEnv are the examples whose tasks print the operator variables
// they were given (drivertest.PrintedEnv).
var printsEnv = map[string]bool{"paddlejob-collective.yaml": true, "jaxjob-coordinator.yaml": true, "mxjob-ps.yaml": true}

func TestExamplesSucceedOnRawExec(t *testing.T) {
	c := agent.Client(t)
	for _, name := range []string{"pai-v1-ps-worker.json", "tfjob-mesh.yaml", "pai-v2-ddp.yaml", "paddlejob-collective.yaml", "jaxjob-coordinator.yaml", "mxjob-ps.yaml"} {
		t.Run(name, func(t *testing.T) {
			p := loadPlan(t, filepath.Join(agent.Repo(), "examples", name), site())
			res, id := run(t, p)
			if res.Phase != completion.PhaseSucceeded || res.ExitCode != 0 {
				t.Fatalf("result %+v", res)
			}
			// Never-ending roles (PS) were stopped by jobshift.
			allocs, _, _ := c.Jobs().Allocations(id, true, nil)
			for _, a := range allocs {
				if a.ClientStatus == "running" || a.ClientStatus == "pending" {
					t.Errorf("alloc %s still %s", a.Name, a.ClientStatus)
				}
			}
			checkEnvAgainstOracle(t, c, p, id)
			if printsEnv[name] {
				checkPrintedEnv(t, c, p, id)
			}
			_, _, _ = c.Jobs().Deregister(id, true, nil)
		})
	}
}

// renderedEnv is the environment rendered for task of alloc: its env
// template's or nomad-env's local/jobshift.env, or the file its sh
// sources (local/jobshift.env.sh, drivers/nomad shellenv.go), sourced.
func renderedEnv(t *testing.T, c *api.Client, alloc *api.Allocation, task string) (map[string]string, error) {
	t.Helper()
	// Cat of a missing file answers its error as the file's text: Stat
	if _, _, err := c.AllocFS().Stat(alloc, task+"/"+nomad.ShellEnvFile, nil); err != nil {
		rc, err := c.AllocFS().Cat(alloc, task+"/local/jobshift.env", nil)
		if err != nil {
			return nil, err
		}
		return drivertest.ReadEnvFile(t, rc), nil
	}
	rc, err := c.AllocFS().Cat(alloc, task+"/"+nomad.ShellEnvFile, nil)
	if err != nil {
		return nil, err
	}
	return drivertest.ReadShellEnvFile(t, rc), nil
}

// checkEnvAgainstOracle compares, for every task, the environment the
// contract template rendered (the task's secrets/jobshift.env, read back
// through the alloc filesystem API) with the oracle's for the actual
// topology.
func checkEnvAgainstOracle(t *testing.T, c *api.Client, p *translate.Plan, id string) {
	t.Helper()
	checkRenderedEnv(t, c, p, id, contract.Options{User: p.User, Contracts: p.Contracts}, nil)
}

// checkRenderedEnv is checkEnvAgainstOracle with the oracle's options,
// for the tasks of every role but those in skip.
func checkRenderedEnv(t *testing.T, c *api.Client, p *translate.Plan, id string, opts contract.Options, skip map[string]bool) {
	t.Helper()
	topo := topology(t, c, p, id)
	allocs, _, _ := c.Jobs().Allocations(id, true, nil)
	for _, a := range allocs {
		full, _, err := c.Allocations().Info(a.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		role := full.Job.LookupTaskGroup(a.TaskGroup).Meta[nomad.MetaRole]
		if skip[role] {
			continue
		}
		i := strings.LastIndexByte(a.Name, '[')
		var idx int
		fmt.Sscanf(a.Name[i:], "[%d]", &idx)
		want, err := contract.Eval(p.Job, topo, jobs.TaskRef{Role: role, Index: idx}, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := renderedEnv(t, c, full, nomad.MainTask)
		if err != nil {
			t.Errorf("%s: reading the rendered env: %v", a.Name, err)
			continue
		}
		for _, v := range want {
			if v.Name == contract.WorkDirVar {
				continue // exported by the task itself
			}
			if g, ok := got[v.Name]; !ok || g != v.Value {
				t.Errorf("%s: %s = %q, oracle %q", a.Name, v.Name, g, v.Value)
			}
			delete(got, v.Name)
		}
		for k := range got {
			if k != "CUDA_VISIBLE_DEVICES" { // a prefix match once hid a glued line
				t.Errorf("%s: %s rendered but not in the oracle", a.Name, k)
			}
		}
	}
}
