package multihost_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
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

// TestVolcanoExamplesNomadDocker: the MPI and PyTorch examples in the
// clients' own Docker daemons (host networking, the containers' host
// names the pods'), the images by the site's rules.
func TestVolcanoExamplesNomadDocker(t *testing.T) {
	c := need(t, "nomad")
	needClientImage(t, c, torchImage, "build-torch-image.sh")
	cl := nomadClient(t, c)
	docker := func(rule siteconfig.ImageRule) *cluster { return onDocker(c, rule) }
	logs := func(id string) string {
		var b strings.Builder
		for _, nt := range nomadTasks(t, cl, id) {
			b.WriteString(catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0"))
			b.WriteString(catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stderr.0"))
		}
		return b.String()
	}
	t.Run("volcano-mpi", func(t *testing.T) {
		needClientImage(t, c, mpiImage, "build-mpi-image.sh")
		plan := loadPlan(t, docker(siteconfig.ImageRule{Pattern: "jobshift/torch:*", Replace: mpiImage}), filepath.Join("examples", "volcano-mpi.yaml"))
		res, id := runNomad(t, c, plan, 4*time.Minute)
		out := logs(id)
		if res.Phase != completion.PhaseSucceeded {
			t.Fatalf("result %+v\n%s", res, out)
		}
		drivertest.CheckAllreduce(t, out, 2)
	})
	t.Run("volcano-pytorch-ddp", func(t *testing.T) {
		plan := loadPlan(t, docker(siteconfig.ImageRule{Pattern: "pytorch/pytorch:*", Replace: torchImage}), filepath.Join("examples", "volcano-pytorch-ddp.yaml"))
		// No volume carries the checkout into the container: send the
		// script itself.
		src, err := os.ReadFile(filepath.Join(repoRoot(), "examples", "ddp_train.py"))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range plan.Job.Roles {
			r.Command.Command = []string{"python3", "-c", string(src)}
		}
		res, id := runNomad(t, c, plan, 5*time.Minute)
		out := logs(id)
		if res.Phase != completion.PhaseSucceeded {
			t.Fatalf("result %+v\n%s", res, out)
		}
		checkChecksums(t, out)
	})
}

// TestVolcanoTFShapeNomad: Volcano's TensorFlow shape, every task on a
// client of its own (distinct_hosts) listening on 2222 at the name its
// peers read from /etc/volcano/*.host: under raw_exec the task view's
// /etc/hosts resolves them, in docker the containers' extra_hosts. Both
// workers reach every peer (the ps serves until CompleteJob stops it).
func TestVolcanoTFShapeNomad(t *testing.T) {
	c := need(t, "nomad")
	cl := nomadClient(t, c)
	run := func(t *testing.T, cc *cluster, edit func(*translate.Plan)) {
		plan := loadPlan(t, cc, filepath.Join("examples", "volcano-tf-shape.yaml"))
		if edit != nil {
			edit(plan)
		}
		res, id := runNomad(t, c, plan, 4*time.Minute)
		tasks := nomadTasks(t, cl, id)
		var logs strings.Builder
		nodes := map[string]bool{}
		for _, nt := range tasks {
			nodes[nt.alloc.NodeID] = true
			logs.WriteString(catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0"))
			logs.WriteString(catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stderr.0"))
		}
		if res.Phase != completion.PhaseSucceeded {
			t.Fatalf("result %+v\n%s", res, logs.String())
		}
		if n := strings.Count(logs.String(), "mesh ok: reached "); n != 2 || len(nodes) != 3 {
			t.Errorf("%d workers reached every peer (want 2), on %d nodes (want 3):\n%s", n, len(nodes), logs.String())
		}
	}
	t.Run("raw_exec", func(t *testing.T) { run(t, c, nil) })
	t.Run("docker", func(t *testing.T) {
		needClientImage(t, c, torchImage, "build-torch-image.sh")
		dc := onDocker(c, siteconfig.ImageRule{Pattern: "volcanosh/*", Replace: torchImage})
		src, err := os.ReadFile(filepath.Join(repoRoot(), "examples", "mesh.py"))
		if err != nil {
			t.Fatal(err)
		}
		run(t, dc, func(p *translate.Plan) {
			// No volume carries the checkout into the container: the
			// program travels in the environment, the job's shell and
			// its host files unchanged.
			for _, r := range p.Job.Roles {
				for _, argv := range [][]string{r.Command.Command, r.Command.Args} {
					for i := range argv {
						argv[i] = strings.Replace(argv[i], "python3 examples/mesh.py", `python3 -c "$JS_MESH"`, 1)
					}
				}
				r.Env = append(r.Env, jobs.EnvVar{Name: "JS_MESH", Value: string(src)})
			}
		})
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
