package nomad_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestTaskHostName: on raw_exec each task of a PyTorchJob sees its pod's
// name (<job>-<replica type>-<i>) from hostname(1), $HOSTNAME and
// gethostname(), and the name resolves to the task's address in the
// allocation (drivers/taskns through the main task's wrapper, view.go);
// where the client allows no namespace the task says so on its stderr
// instead. The Slurm and local drivers' tests of the same name check the
// same job. Both ways the wrapper's files arrive are run: templates (a
// site without the helper) and nomad-env (viewSites).
func TestTaskHostName(t *testing.T) {
	for _, vs := range viewSites(t) {
		t.Run(vs.name, func(t *testing.T) { taskHostName(t, vs.site) })
	}
}

// TestTaskHostNameOnDocker: the same job's containers (the host's network)
// get their pods' names through the driver's hostname option, resolving to
// the task's address through extra_hosts.
func TestTaskHostNameOnDocker(t *testing.T) {
	needDocker(t)
	taskHostName(t, &siteconfig.Config{
		Nomad:  &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
		Images: []siteconfig.ImageRule{{Pattern: "python:3.11", Replace: torchImage}},
	})
}

// viewSite is a site whose raw_exec tasks get their view one way.
type viewSite struct {
	name string
	site *siteconfig.Config
}

// viewSites: templates deliver the task namespace's files on a site
// without the helper; with it (and jobshift-env) nomad-env writes them
// (the shape's ViewInTask).
func viewSites(t *testing.T) []viewSite {
	withHelper := site()
	withHelper.Nomad.Helper = drivertest.Jobshift(t)
	withHelper.Nomad.EnvHelper = drivertest.JobshiftEnv(t)
	return []viewSite{{"templates", site()}, {"nomad-env", withHelper}}
}

func taskHostName(t *testing.T, cfg *siteconfig.Config) {
	c := agent.Client(t)
	p := loadPlan(t, filepath.Join(agent.Repo(), "integration", "testdata", "view", "hostname.yaml"), cfg)
	if cfg.Nomad.Driver == "docker" {
		// a container's name comes from the driver, not the view
	} else if want := map[bool]nomad.ViewWay{false: nomad.ViewTemplates, true: nomad.ViewInTask}[cfg.Nomad.EnvHelper != ""]; !viewWayIs(t, p, want) {
		t.Fatalf("the shape does not deliver the view by %s", want)
	}
	res, id := run(t, p)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	topo := topology(t, c, p, id)
	allocs, _, err := c.Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, a := range allocs {
		full, _, err := c.Allocations().Info(a.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		role := full.Job.LookupTaskGroup(a.TaskGroup).Meta[nomad.MetaRole]
		var idx int
		fmt.Sscanf(a.Name[strings.LastIndexByte(a.Name, '['):], "[%d]", &idx)
		out, errOut := catLogs(t, a.ID, nomad.MainTask), catStderr(t, a.ID, nomad.MainTask)
		if strings.Contains(errOut, "keeps the node's host name") {
			t.Skipf("the client allows no namespace: %s", errOut)
		}
		addr := ""
		for k, r := range p.Job.Roles {
			if r.Name == role {
				addr = topo.Roles[k].Tasks[idx].Addr
			}
		}
		name := fmt.Sprintf("names-%s-%d", strings.ToLower(role), idx)
		want := "hostname=" + name + " HOSTNAME=" + name + "\ngethostname=" + name + " resolves=" + addr + "\n"
		if addr == "" || out != want {
			t.Errorf("%s printed %q, want %q (stderr %q)", a.Name, out, want, errOut)
		}
		seen++
	}
	if seen != 3 {
		t.Errorf("%d tasks' logs read, want 3", seen)
	}
}

// TestVolcanoFilesOnRawExec: the Volcano MPI example, whose launcher
// builds its host list from /etc/volcano/mpiworker.host, runs to success
// on raw_exec: the file is at the job's path in the task's view
// (drivers/taskns), and the worker names in it are the workers' own.
func TestVolcanoFilesOnRawExec(t *testing.T) {
	drivertest.NeedMPI(t)
	for _, vs := range viewSites(t) {
		t.Run(vs.name, func(t *testing.T) { volcanoFilesOnRawExec(t, vs.site) })
	}
}

func volcanoFilesOnRawExec(t *testing.T, cfg *siteconfig.Config) {
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "volcano-mpi.yaml"), cfg)
	res, id := run(t, p)
	if res.Phase != completion.PhaseSucceeded {
		c := agent.Client(t)
		allocs, _, _ := c.Jobs().Allocations(id, true, nil)
		for _, a := range allocs {
			t.Logf("%s stderr:\n%s", a.Name, catStderr(t, a.ID, nomad.MainTask))
		}
		t.Fatalf("result %+v", res)
	}
}

// viewWayIs: every raw_exec group of p's watched shape gets its task
// namespace's files the way want says.
func viewWayIs(t *testing.T, p *translate.Plan, want nomad.ViewWay) bool {
	t.Helper()
	s, diags := nomad.Decide(p, true)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, g := range s.Groups {
		if g.View != want {
			return false
		}
	}
	return true
}
