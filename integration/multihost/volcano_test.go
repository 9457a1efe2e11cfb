package multihost_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// Volcano's own example shapes across hosts: the MPI job (the launcher's
// host list from /etc/volcano/mpiworker.host, mpiexec over the ssh
// plugin: 2 ranks sum 3) and the PyTorch job with the pytorch plugin's
// variables (gloo DDP, every rank the same parameters).

func TestVolcanoExamplesNomad(t *testing.T) {
	c := need(t, "nomad")
	cl := nomadClient(t, c)
	t.Run("volcano-mpi", func(t *testing.T) {
		drivertest.NeedMPI(t)
		plan := loadPlan(t, c, filepath.Join("examples", "volcano-mpi.yaml"))
		res, id := runNomad(t, c, plan, 4*time.Minute)
		var logs strings.Builder
		for _, nt := range nomadTasks(t, cl, id) {
			logs.WriteString(catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0"))
		}
		if res.Phase != completion.PhaseSucceeded {
			t.Fatalf("result %+v\n%s", res, logs.String())
		}
		drivertest.CheckAllreduce(t, logs.String(), 2)
	})
	t.Run("volcano-pytorch-ddp", func(t *testing.T) {
		if !haveTorch(t) {
			t.Skip("python3-torch not installed")
		}
		site := *c.Site
		site.Roles = append([]siteconfig.RoleRule{{Pattern: "*", Env: map[string]string{"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}}}, site.Roles...)
		torch := &cluster{Engine: c.Engine, Env: c.Env, Hosts: c.Hosts, Site: &site}
		plan := loadPlan(t, torch, filepath.Join("examples", "volcano-pytorch-ddp.yaml"))
		res, id := runNomad(t, c, plan, 5*time.Minute)
		if res.Phase != completion.PhaseSucceeded {
			t.Fatalf("result %+v", res)
		}
		tasks := nomadTasks(t, cl, id)
		var logs strings.Builder
		for _, nt := range tasks {
			logs.WriteString(catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0"))
		}
		checkChecksums(t, logs.String())
		checkNodes(t, c, cl, plan, nomadTopology(plan, id, tasks), tasks)
	})
}

func TestVolcanoExamplesSlurm(t *testing.T) {
	c := need(t, "slurm")
	t.Run("volcano-mpi", func(t *testing.T) {
		drivertest.NeedMPI(t)
		plan := loadPlan(t, c, filepath.Join("examples", "volcano-mpi.yaml"))
		r := runSlurm(t, plan, 4*time.Minute)
		out := r.taskLog(t, "mpimaster", 0)
		if r.final.Phase != completion.PhaseSucceeded {
			t.Fatalf("final %+v; master output:\n%s", r.final, out)
		}
		drivertest.CheckAllreduce(t, out, 2)
		checkSpread(t, c, taskAddrs(plan.Job, r.topology(t)))
	})
	t.Run("volcano-pytorch-ddp", func(t *testing.T) {
		if !haveTorch(t) {
			t.Skip("python3-torch not installed")
		}
		t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
		plan := loadPlan(t, c, filepath.Join("examples", "volcano-pytorch-ddp.yaml"))
		r := runSlurm(t, plan, 5*time.Minute)
		if r.final.Phase != completion.PhaseSucceeded {
			t.Fatalf("final = %+v", r.final)
		}
		var logs strings.Builder
		for _, role := range plan.Job.Roles {
			for i := 0; i < role.Instances; i++ {
				logs.WriteString(r.taskLog(t, role.Name, i))
			}
		}
		checkChecksums(t, logs.String())
		checkSpread(t, c, taskAddrs(plan.Job, r.topology(t)))
	})
	t.Run("volcano-tf-shape", func(t *testing.T) {
		// one task per host: the fixed port 2222 of every task is free on
		// its host and the svc plugin's names resolve to the peers
		plan := loadPlan(t, c, filepath.Join("examples", "volcano-tf-shape.yaml"))
		r := runSlurm(t, plan, 4*time.Minute)
		var logs strings.Builder
		for _, role := range plan.Job.Roles {
			for i := 0; i < role.Instances; i++ {
				logs.WriteString(r.taskLog(t, role.Name, i))
			}
		}
		if r.final.Phase != completion.PhaseSucceeded {
			t.Fatalf("final = %+v\n%s", r.final, logs.String())
		}
		checkSpread(t, c, taskAddrs(plan.Job, r.topology(t)))
	})
}
