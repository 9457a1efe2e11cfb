package nomad_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// runStates is run that also keeps every task's last state of the last
// attempt.
func runStates(t *testing.T, p *translate.Plan) (*drivers.Result, map[string]completion.State, string) {
	t.Helper()
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	p.Options["id"] = fmt.Sprintf("%s-%d", p.Job.Name, time.Now().UnixNano()%1e9)
	p.Options[nomad.OptWorkDir] = agent.Repo()
	p.Options[nomad.OptWatched] = "true"
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	h, err := d.Submit(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	events, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	var final *drivers.Result
	states, attempt := map[string]completion.State{}, 0
	for e := range events {
		if e.Task != nil {
			t.Logf("%s-%d attempt %d %s %d %s", e.Task.Role, e.Task.Index, e.Attempt, e.State, e.ExitCode, e.Message)
			if e.Attempt > attempt {
				attempt, states = e.Attempt, map[string]completion.State{}
			}
			states[fmt.Sprintf("%s-%d", e.Task.Role, e.Task.Index)] = e.State
		}
		if e.Task == nil && e.Final == nil && e.Message != "" {
			t.Logf("attempt %d: %s", e.Attempt, e.Message)
		}
		if e.Final != nil {
			final = e.Final
		}
	}
	if final == nil {
		t.Fatalf("job %s: no result", h.ID)
	}
	return final, states, h.ID
}

// volcanoPlan loads a Volcano policy job of examples/testdata whose tasks
// count their runs in dir ($VC_RUNS, given to every role as the test's
// environment is to the local driver's tasks).
func volcanoPlan(t *testing.T, file, dir string) *translate.Plan {
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "testdata", file), site())
	for _, r := range p.Job.Roles {
		r.Env = append(r.Env, jobs.EnvVar{Name: "VC_RUNS", Value: dir})
	}
	return p
}

func runsDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil { // the tasks' user may differ
		t.Fatal(err)
	}
	return dir
}

func runCount(t *testing.T, dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "count"))
	return strings.TrimSpace(string(b))
}

// Volcano's policies on Nomad, as examples/volcano_test.go runs them
// locally (pkg/controllers/job/state/running.go, restarting.go,
// job_controller_util.go applyPolicies @v1.16.0-alpha.1): exitCode 3 →
// RestartJob within maxRetry, maxRetry exhausted, RestartPod, PodFailed →
// AbortJob, exitCode → TerminateJob, TaskCompleted → CompleteJob with
// never-ending workers.
func TestVolcanoPoliciesOnNomad(t *testing.T) {
	t.Run("exitcode-restartjob", func(t *testing.T) {
		dir := runsDir(t)
		res, _, _ := runStates(t, volcanoPlan(t, "volcano-exitcode-restartjob.yaml", dir))
		if res.Phase != completion.PhaseSucceeded || res.Attempts != 3 {
			t.Errorf("result = %+v, want succeeded after 3 attempts", res)
		}
		if n := runCount(t, dir); n != "3" {
			t.Errorf("runs = %q, want 3", n)
		}
	})
	t.Run("maxretry", func(t *testing.T) {
		dir := runsDir(t)
		res, _, _ := runStates(t, volcanoPlan(t, "volcano-maxretry.yaml", dir))
		if res.Phase != completion.PhaseFailed || res.ExitCode != 3 || res.Attempts != 2 {
			t.Errorf("result = %+v, want failed with exit code 3 after 2 attempts", res)
		}
	})
	for name, c := range map[string]struct{ file, runs string }{
		"restartpod": {"volcano-restartpod.yaml", "3"}, "podfailed-restarttask": {"volcano-podfailed-restarttask.yaml", "2"}} {
		t.Run(name, func(t *testing.T) {
			// in place, inside the task (restart.sh): one attempt
			dir := runsDir(t)
			res, _, _ := runStates(t, volcanoPlan(t, c.file, dir))
			if res.Phase != completion.PhaseSucceeded || res.Attempts != 1 {
				t.Errorf("result = %+v, want succeeded in 1 attempt", res)
			}
			if n := runCount(t, dir); n != c.runs {
				t.Errorf("runs = %q, want %s", n, c.runs)
			}
		})
	}
	for name, c := range map[string]struct {
		file string
		code int
	}{"podfailed-abortjob": {"volcano-podfailed-abortjob.yaml", 5}, "exitcode-terminatejob": {"volcano-exitcode-terminatejob.yaml", 7}} {
		t.Run(name, func(t *testing.T) {
			// at once, not restarted within maxRetry 3; the ps stopped
			res, states, _ := runStates(t, volcanoPlan(t, c.file, runsDir(t)))
			if res.Phase != completion.PhaseFailed || res.ExitCode != c.code || res.Attempts != 1 {
				t.Errorf("result = %+v, want failed with exit code %d after 1 attempt", res, c.code)
			}
			if states["ps-0"] != completion.Stopped {
				t.Errorf("ps-0 = %s, want stopped", states["ps-0"])
			}
		})
	}
	t.Run("taskcompleted", func(t *testing.T) {
		res, states, _ := runStates(t, volcanoPlan(t, "volcano-taskcompleted.yaml", runsDir(t)))
		if res.Phase != completion.PhaseSucceeded || res.Attempts != 1 {
			t.Errorf("result = %+v, want succeeded after 1 attempt", res)
		}
		for _, w := range []string{"worker-0", "worker-1"} {
			if states[w] != completion.Stopped {
				t.Errorf("%s = %s, want stopped", w, states[w])
			}
		}
	})
}

// TestVolcanoPolicyTableOnNomad runs the rows of examples/volcano_test.go
// TestVolcanoPolicies (examples/testdata/volcano-policy-*.yaml, each with
// its "# want:" line written from upstream's rule) on the agent.
func TestVolcanoPolicyTableOnNomad(t *testing.T) {
	for _, w := range drivertest.VolcanoWants(t, filepath.Join(agent.Repo(), "examples", "testdata")) {
		t.Run(w.File, func(t *testing.T) {
			dir := runsDir(t)
			res, states, _ := runStates(t, volcanoPlan(t, w.File, dir))
			if string(res.Phase) != w.Phase || res.ExitCode != w.Exit || res.Attempts != w.Attempts {
				t.Errorf("result = %+v, want %s, exit code %d, %d attempts", res, w.Phase, w.Exit, w.Attempts)
			}
			if n := runCount(t, dir); w.Runs != "" && n != w.Runs {
				t.Errorf("runs = %q, want %s", n, w.Runs)
			}
			for _, s := range w.Stopped {
				if states[s] != completion.Stopped {
					t.Errorf("%s = %s, want stopped", s, states[s])
				}
			}
		})
	}
}

// TestVolcanoSSHFilesOnRawExec: the ssh plugin's files are at /root/.ssh
// in every raw_exec task's view: the master logs in to every pod its
// config names with the plugin's key (examples/volcano_test.go runs the
// same job locally).
func TestVolcanoSSHFilesOnRawExec(t *testing.T) {
	volcanoSSHFiles(t, site(), true)
}

// TestVolcanoSSHFilesOnDocker: the same in containers, the files' private
// directory a volume of the task's secrets directory at /root/.ssh (a
// container on the host's network has the host's name: the master counts
// its logins).
func TestVolcanoSSHFilesOnDocker(t *testing.T) {
	needDocker(t)
	if err := exec.Command("docker", "image", "inspect", mpiImage).Run(); err != nil {
		t.Skip("image " + mpiImage + " is missing: run integration/nomad/build-mpi-image.sh")
	}
	volcanoSSHFiles(t, &siteconfig.Config{
		Nomad:  &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
		Images: []siteconfig.ImageRule{{Pattern: "busybox", Replace: mpiImage}},
	}, false)
}

// volcanoSSHFiles runs the job; names: every task has its pod's host name.
func volcanoSSHFiles(t *testing.T, cfg *siteconfig.Config, names bool) {
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "testdata", "volcano-ssh-files.yaml"), cfg)
	res, _, id := runStates(t, p)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	c := agent.Client(t)
	allocs, _, err := c.Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for _, a := range allocs {
		if strings.Contains(a.Name, "master") {
			out += catLogs(t, a.ID, nomad.MainTask)
		}
	}
	if !names {
		if n := strings.Count(out, "reached "); n != 3 {
			t.Errorf("the master reached %d hosts, want 3:\n%s", n, out)
		}
		return
	}
	for _, h := range []string{"vc-ssh-master-0", "vc-ssh-worker-0", "vc-ssh-worker-1"} {
		if !strings.Contains(out, "reached "+h+"\n") {
			t.Errorf("the master did not reach %s:\n%s", h, out)
		}
	}
}

// TestVolcanoTFShapeOneHost: Volcano's TensorFlow shape (peers from
// /etc/volcano/*.host with the job's own port 2222, as each pod had its own
// network) on the one-client agent with raw_exec, unchanged: its tasks
// share the client, so each gets a network of its own on it (the shape's
// TaskNets instead of distinct_hosts), both workers reach every peer by
// name (examples/mesh.py), and nothing of the tasks' networks is left on
// the host (integration/multihost runs it with distinct_hosts across
// clients).
func TestVolcanoTFShapeOneHost(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	c := agent.Client(t)
	if nodes, _, err := c.Nodes().List(nil); err != nil || len(nodes) != 1 {
		t.Skipf("the agent has %d clients (%v), the test needs one", len(nodes), err)
	}
	sites := map[string]func() *siteconfig.Config{
		// the view's files by template, the environment sourced
		"templates": site,
		// nomad-env writes the view and makes the namespaces (ExecRoot);
		// the finisher is the poststop task, out of the tasks' networks
		"helper": func() *siteconfig.Config {
			s := site()
			s.Nomad.Helper = helper(t)
			return s
		},
	}
	for name, cfg := range sites {
		t.Run(name, func(t *testing.T) {
			p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "volcano-tf-shape.yaml"), cfg())
			res, id := run(t, p)
			logs := mainLogs(t, id)
			if res.Phase != completion.PhaseSucceeded {
				t.Fatalf("result %+v\n%s", res, logs)
			}
			if p.Options[nomad.OptOneClient] != "true" {
				t.Errorf("Submit did not find the one client (%s = %q)", nomad.OptOneClient, p.Options[nomad.OptOneClient])
			}
			for _, want := range []string{"worker:0: mesh ok: reached ps:0,worker:1; sum=1030", "worker:1: mesh ok: reached ps:0,worker:0; sum=1030"} {
				if !strings.Contains(logs, want) {
					t.Errorf("no %q in the tasks' output:\n%s", want, logs)
				}
			}
			job, _, err := c.Jobs().Info(id, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range job.Constraints {
				if k.Operand == api.ConstraintDistinctHosts {
					t.Errorf("the job has distinct_hosts on a one-client cluster")
				}
			}
			drivertest.NoTaskNetLeft(t)
		})
	}
}

var checksum3Re = regexp.MustCompile(`rank (\d) of 3 checksum (\S+)`)

// TestVolcanoExamplesOnNomad: Volcano's PyTorch example (the pytorch
// plugin's MASTER_ADDR, WORLD_SIZE, RANK; a gloo DDP step) on raw_exec and
// in containers, and its MPI example (mpiexec over the ssh plugin, the host
// list from /etc/volcano/mpiworker.host) in containers, on the one-client
// agent (TestVolcanoFilesOnRawExec runs the MPI example on raw_exec).
func TestVolcanoExamplesOnNomad(t *testing.T) {
	torch := func(t *testing.T, cfg *siteconfig.Config, inImage bool) {
		p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "volcano-pytorch-ddp.yaml"), cfg)
		if inImage {
			// No volume carries the checkout into the container: send the
			// script itself.
			src, err := os.ReadFile(filepath.Join(agent.Repo(), "examples", "ddp_train.py"))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range p.Job.Roles {
				r.Command.Command = []string{"python3", "-c", string(src)}
			}
		}
		res, sums := runTraining(t, p, checksum3Re, nil)
		if res.Phase != completion.PhaseSucceeded || len(sums) != 3 || sums["0"] != sums["1"] || sums["0"] != sums["2"] {
			t.Errorf("result %+v, checksums %v: want succeeded with three equal", res, sums)
		}
	}
	t.Run("pytorch-raw_exec", func(t *testing.T) {
		if _, err := os.Stat("/usr/lib/python3/dist-packages/torch"); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("python3-torch is not installed")
			}
			t.Skip("python3-torch is not installed")
		}
		torch(t, &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec", CPUMHzPerCore: 100, BarrierTimeout: "2m"}, Roles: torchPath}, false)
	})
	t.Run("pytorch-docker", func(t *testing.T) {
		needDocker(t)
		torch(t, &siteconfig.Config{
			Nomad:  &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
			Images: []siteconfig.ImageRule{{Pattern: "pytorch/pytorch:*", Replace: torchImage}},
		}, true)
	})
	t.Run("mpi-docker", func(t *testing.T) {
		needDocker(t)
		if err := exec.Command("docker", "image", "inspect", mpiImage).Run(); err != nil {
			t.Skip("image " + mpiImage + " is missing: run integration/nomad/build-mpi-image.sh")
		}
		p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "volcano-mpi.yaml"), &siteconfig.Config{
			Nomad:  &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
			Images: []siteconfig.ImageRule{{Pattern: "jobshift/torch:*", Replace: mpiImage}},
		})
		res, id := run(t, p)
		c := agent.Client(t)
		defer c.Jobs().Deregister(id, true, nil)
		allocs, _, _ := c.Jobs().Allocations(id, true, nil)
		out := ""
		for _, a := range allocs {
			out += catLogs(t, a.ID, nomad.MainTask)
			if res.Phase != completion.PhaseSucceeded {
				out += catStderr(t, a.ID, nomad.MainTask)
			}
		}
		if res.Phase != completion.PhaseSucceeded {
			t.Fatalf("result %+v\n%s", res, out)
		}
		drivertest.CheckAllreduce(t, out, 2)
	})
}

// TestVolcanoNodeFieldsOnNomad: spec.nodeName and status.hostIP(s) are the
// client's name and address (node.unique.name,
// attr.unique.network.ip-address, read as the agent reports them), on
// raw_exec with and without the site's helper (the node's attributes reach
// only a template: the group keeps one), and in containers.
func TestVolcanoNodeFieldsOnNomad(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	c := agent.Client(t)
	stubs, _, err := c.Nodes().List(nil)
	if err != nil || len(stubs) != 1 {
		t.Skipf("the agent has %d clients (%v), the test needs one", len(stubs), err)
	}
	node, _, err := c.Nodes().Info(stubs[0].ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	ip := node.Attributes["unique.network.ip-address"]
	sites := map[string]*siteconfig.Config{
		"raw_exec":        site(),
		"raw_exec+helper": {Nomad: &siteconfig.NomadConfig{Driver: "raw_exec", CPUMHzPerCore: 100, BarrierTimeout: "2m", Helper: helper(t)}},
	}
	if exec.Command("docker", "image", "inspect", mpiImage).Run() == nil { // an image already here: the test host may be offline
		sites["docker"] = &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
			Images: []siteconfig.ImageRule{{Pattern: "busybox", Replace: mpiImage}}}
	}
	for name, cfg := range sites {
		t.Run(name, func(t *testing.T) {
			p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "testdata", "volcano-node-fields.yaml"), cfg)
			res, _, id := runStates(t, p)
			if res.Phase != completion.PhaseSucceeded {
				t.Fatalf("result %+v", res)
			}
			allocs, _, err := c.Jobs().Allocations(id, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			for _, a := range allocs {
				env := drivertest.PrintedEnv(catLogs(t, a.ID, nomad.MainTask))
				if env["MY_POD_NAME"] == "" {
					continue
				}
				seen++
				if env["MY_NODE_NAME"] != node.Name || env["MY_HOST_IP"] != ip || env["MY_HOST_IPS"] != ip {
					t.Errorf("%s: node %q, host IP %q, IPs %q; want %q and %q", env["MY_POD_NAME"], env["MY_NODE_NAME"], env["MY_HOST_IP"], env["MY_HOST_IPS"], node.Name, ip)
				}
			}
			if seen != 2 {
				t.Errorf("%d tasks printed their environment, want 2", seen)
			}
		})
	}
}

// TestVolcanoTFRetryOneHost: Volcano's TensorFlow shape on the one-client
// agent (each task a network of its own there) whose first attempt fails
// (worker 0 exits 3, RestartJob: examples/testdata/volcano-tf-restartjob.yaml)
// trains on the second: each attempt's tasks are on a link of their own,
// keyed by the job and the attempt (a retry's tasks may start while the
// last attempt's still end on the client, at the same addresses), and
// nothing is left of either.
func TestVolcanoTFRetryOneHost(t *testing.T) {
	c := agent.Client(t)
	if nodes, _, err := c.Nodes().List(nil); err != nil || len(nodes) != 1 {
		t.Skipf("the agent has %d clients (%v), the test needs one", len(nodes), err)
	}
	for name, cfg := range map[string]func() *siteconfig.Config{
		"templates": site,
		"helper": func() *siteconfig.Config {
			s := site()
			s.Nomad.Helper = helper(t)
			return s
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "testdata", "volcano-tf-restartjob.yaml"), cfg())
			dir := runsDir(t)
			for _, r := range p.Job.Roles {
				r.Env = append(r.Env, jobs.EnvVar{Name: "VC_RUNS", Value: dir})
			}
			seen := drivertest.SeeTaskNets(t)
			res, states, id := runStates(t, p)
			anchors := seen()
			logs := mainLogs(t, id)
			if res.Phase != completion.PhaseSucceeded || res.Attempts != 2 {
				t.Fatalf("result %+v (%v), want succeeded after 2 attempts\n%s", res, states, logs)
			}
			for _, want := range []string{"worker:0: mesh ok: reached ps:0,worker:1; sum=1030", "worker:1: mesh ok: reached ps:0,worker:0; sum=1030"} {
				if !strings.Contains(logs, want) {
					t.Errorf("no %q in the tasks' output:\n%s", want, logs)
				}
			}
			for attempt := range 2 {
				if k := nomad.TaskNetKey(p, attempt); !anchors[drivertest.TaskNetAnchor(t, k)] {
					t.Errorf("attempt %d: no link of key %s seen on the host: %v", attempt, k, anchors)
				}
			}
			if a := drivertest.TaskNetAnchor(t, id); anchors[a] {
				t.Errorf("a link of the job's ID alone (%s), shared by its attempts", a)
			}
			drivertest.NoTaskNetLeft(t)
		})
	}
}
