package multihost_test

import (
	"fmt"
	"os"
	"os/exec"
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

// TestVolcanoNodeFieldsNomad: across clients, each task's spec.nodeName and
// status.hostIP(s) are its own client's name and address, as the cluster
// reports them for the node its allocation ran on.
func TestVolcanoNodeFieldsNomad(t *testing.T) {
	c := need(t, "nomad")
	cl := nomadClient(t, c)
	plan := loadPlan(t, c, filepath.Join("examples", "testdata", "volcano-node-fields.yaml"))
	res, id := runNomad(t, c, plan, 3*time.Minute)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	tasks := nomadTasks(t, cl, id)
	if len(tasks) != 2 {
		t.Fatalf("%d tasks, want 2", len(tasks))
	}
	hostIPs := map[string]string{}
	for _, nt := range tasks {
		node, _, err := cl.Nodes().Info(nt.alloc.NodeID, nil)
		if err != nil {
			t.Fatal(err)
		}
		env := drivertest.PrintedEnv(catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0"))
		ip := node.Attributes["unique.network.ip-address"]
		t.Logf("%s-%d ran on %s (%s) and printed %v", nt.role, nt.index, node.Name, ip, env)
		if env["MY_NODE_NAME"] != node.Name || env["MY_HOST_IP"] != ip || env["MY_HOST_IPS"] != ip {
			t.Errorf("%s-%d on %s (%s): printed node %q, host IP %q, IPs %q", nt.role, nt.index, node.Name, ip, env["MY_NODE_NAME"], env["MY_HOST_IP"], env["MY_HOST_IPS"])
		}
		hostIPs[fmt.Sprintf("%s-%d", nt.role, nt.index)] = env["MY_HOST_IP"]
	}
	checkSpread(t, c, hostIPs)
}

// TestVolcanoNodeFieldsSlurm: across hosts, each task's spec.nodeName is a
// node of the cluster and status.hostIP(s) that node's NodeAddr, as
// scontrol reports them.
func TestVolcanoNodeFieldsSlurm(t *testing.T) {
	c := need(t, "slurm")
	plan := loadPlan(t, c, filepath.Join("examples", "testdata", "volcano-node-fields.yaml"))
	r := runSlurm(t, plan, 3*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final %+v", r.final)
	}
	addrOf := slurmNodeAddrs(t)
	hostIPs := map[string]string{}
	for i := range 2 {
		env := drivertest.PrintedEnv(r.taskLog(t, "worker", i))
		n := env["MY_NODE_NAME"]
		t.Logf("worker-%d printed %v", i, env)
		if a, ok := addrOf[n]; !ok || env["MY_HOST_IP"] != a || env["MY_HOST_IPS"] != a {
			t.Errorf("worker-%d: node %q, host IP %q, IPs %q; want a node of %v and its NodeAddr", i, n, env["MY_HOST_IP"], env["MY_HOST_IPS"], addrOf)
		}
		hostIPs[fmt.Sprintf("worker-%d", i)] = env["MY_HOST_IP"]
	}
	checkSpread(t, c, hostIPs)
}

// slurmNodeAddrs is every node's NodeAddr, by node name.
func slurmNodeAddrs(t *testing.T) map[string]string {
	out, err := exec.Command("scontrol", "show", "node", "-o").Output()
	if err != nil {
		t.Fatal(err)
	}
	addrOf := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, _, _ := strings.Cut(strings.TrimPrefix(l, "NodeName="), " ")
		if _, a, ok := strings.Cut(l, " NodeAddr="); ok {
			addrOf[name], _, _ = strings.Cut(a, " ")
		}
	}
	return addrOf
}
