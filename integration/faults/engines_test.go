package faults_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/drivers/slurm"
)

// nomadClient is the case's one API client: a client per call opens a
// connection per call, and the server answers 429 past 100 per address.
func (cr *caseRun) nomadClient() *api.Client {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.nomad == nil {
		cfg := api.DefaultConfig()
		cfg.Address = cr.c.Env["NOMAD_ADDR"]
		cl, err := api.NewClient(cfg)
		if err != nil {
			panic(err) // only a malformed address: NOMAD_ADDR comes from cluster.sh
		}
		cr.nomad = cl
	}
	return cr.nomad
}

// driver is the engine's driver with the options the cluster needs.
func (cr *caseRun) driver() drivers.Driver {
	if cr.c.Engine == "slurm" {
		cr.plan.Options["state_dir"] = filepath.Join(cr.rec, "..", filepath.Base(cr.rec)+"-state")
		cr.plan.Options["submit_dir"] = repoRoot()
		cr.t.Cleanup(func() { os.RemoveAll(cr.plan.Options["state_dir"]) })
		return slurm.New(drivers.Config{Site: cr.plan.Site, Options: map[string]string{"watch_interval": "500ms"}})
	}
	cr.plan.Options["id"] = cr.plan.Job.Name
	cr.plan.Options[nomad.OptWorkDir] = repoRoot()
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: cr.plan.Site})
	if err != nil {
		cr.t.Fatal(err)
	}
	return d
}

// runInProcess: the driver submits and watches (as `jobshift run` does)
// while the fault is injected.
func (cr *caseRun) runInProcess(ctx context.Context) {
	t := cr.t
	d := cr.driver()
	cr.plan.Options[nomad.OptWatched] = "true" // watched below, as jobshift run does
	h, err := d.Submit(ctx, cr.plan)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	cr.jobID = h.ID
	cr.cleanupJob(h)
	ev, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range ev {
			cr.mu.Lock()
			cr.events = append(cr.events, e)
			if e.Final != nil {
				cr.final, cr.finalAt = e.Final, e.Time
			}
			cr.mu.Unlock()
		}
	}()
	if cr.fc.fault != noFault && cr.waitStarted(ctx) {
		cr.inject(ctx)
	}
	<-done
	cr.verdict = cr.verdictTime(h)
}

// verdictTime is when the faulted attempt's verdict fell: Nomad, the
// watcher's "stopping the job" event; Slurm, when the batch script recorded
// the deciding end (the attempt's "ends" file), else the first change of
// the job's state after the fault (the script itself was lost), else the
// final event.
func (cr *caseRun) verdictTime(h drivers.Handle) time.Time {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.c.Engine == "slurm" {
		// the script decided (it wrote its verdict): the deciding end was
		// the last one it recorded
		adir := filepath.Join(h.Meta["state"], "attempt-1")
		if _, err := os.Stat(filepath.Join(adir, "verdict")); err == nil {
			if st, err := os.Stat(filepath.Join(adir, "ends")); err == nil && st.ModTime().After(cr.fault) {
				return st.ModTime()
			}
		}
	}
	for _, e := range cr.events {
		if !e.Time.After(cr.fault) {
			continue
		}
		switch {
		case e.Final != nil:
			return e.Time
		case cr.c.Engine == "nomad" && strings.Contains(e.Message, "stopping the job"):
			return e.Time
		case cr.c.Engine == "slurm" && e.Task == nil && strings.HasPrefix(e.Message, "slurm job") && !strings.Contains(e.Message, "RUNNING"):
			return e.Time
		}
	}
	return time.Time{}
}

// cleanupJob: the job is stopped if still running and purged (Nomad).
func (cr *caseRun) cleanupJob(h drivers.Handle) {
	cr.t.Cleanup(func() {
		if cr.c.Engine == "slurm" {
			if cr.t.Failed() {
				out, _ := os.ReadFile(h.Meta["output"])
				cr.t.Logf("batch output of job %s:\n%s", h.ID, out)
				_ = exec.Command("scancel", h.ID).Run()
			}
			return
		}
		_, _, _ = cr.nomadClient().Jobs().Deregister(h.ID, true, nil)
	})
}

// checkLeftovers: no allocation of the job running or pending (any
// version), no Slurm step left.
func (cr *caseRun) checkLeftovers() {
	t := cr.t
	var left string
	for try := 0; try < 40; try++ {
		left = ""
		if cr.c.Engine == "slurm" {
			out, err := exec.Command("squeue", "-h", "-j", cr.jobID, "-s", "-o", "%i %T").Output()
			if err == nil {
				left = strings.TrimSpace(string(out))
			}
		} else {
			allocs, _, err := cr.nomadClient().Jobs().Allocations(cr.jobID, true, nil)
			if err != nil {
				t.Errorf("allocations of %s: %v", cr.jobID, err)
				return
			}
			for _, a := range allocs {
				if a.ClientStatus == "running" || a.ClientStatus == "pending" {
					left += fmt.Sprintf("%s v%d %s on %s\n", a.Name, a.JobVersion, a.ClientStatus, a.NodeName)
				}
			}
		}
		if left == "" {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Errorf("job %s: left behind:\n%s", cr.jobID, left)
}

// cli runs the jobshift binary with the cluster's environment.
func (cr *caseRun) cli(args ...string) *exec.Cmd {
	cmd := exec.Command(cr.c.helper(cr.t), args...)
	// the submit directory (Slurm writes the batch output there): the
	// case's own, which every host sees; the tasks' paths are absolute
	os.MkdirAll(cr.rec+"-state", 0o755)
	cmd.Dir = cr.rec + "-state"
	cmd.Env = append(os.Environ(), "JOBSHIFT_STATE_DIR="+cr.rec+"-state")
	for k, v := range cr.c.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// status runs `jobshift status -json` and reads its snapshot: the verdict
// jobshift recorded, or an error when the job has none (yet).
func (cr *caseRun) status() *drivers.Result {
	cmd := cr.cli("status", "-json", "-to", cr.c.Engine, cr.jobID)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		cr.t.Errorf("jobshift status %s: %v\n%s%s", cr.jobID, err, out, stderr.String())
		return nil
	}
	var st drivers.Status
	if err := json.Unmarshal(out, &st); err != nil {
		cr.t.Errorf("jobshift status -json %s: %v in:\n%s", cr.jobID, err, out)
		return nil
	}
	if !st.Ended() {
		cr.t.Errorf("jobshift status %s: no verdict, phase %s (%s):\n%s", cr.jobID, st.Phase, st.Reason, out)
		return nil
	}
	return &drivers.Result{Phase: st.Phase, ExitCode: st.ExitCode, Attempts: st.Attempt + 1, Reason: st.Reason}
}

// runCLIKilled: `jobshift run` follows the job and is SIGKILLed mid-job;
// the job must still end by its rules (the Nomad finisher, the Slurm batch
// script), which the suite waits for on the engine itself, and then
// `jobshift status` must report the verdict.
func (cr *caseRun) runCLIKilled(ctx context.Context) {
	t := cr.t
	os.MkdirAll(cr.rec+"-state", 0o755)
	t.Cleanup(func() { os.RemoveAll(cr.rec + "-state") })
	cmd := cr.cli("run", "-to", cr.c.Engine, "-plain", cr.file)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	if !cr.waitStarted(ctx) {
		_ = cmd.Process.Kill()
		t.Fatal("tasks did not start")
	}
	cr.fault = time.Now()
	_ = cmd.Process.Kill()
	cr.cleanupJob(drivers.Handle{ID: cr.jobID})
	cr.waitEnded(ctx)
	cr.verdict = time.Now()
	cr.final = cr.status()
}

// waitEnded waits until the engine says the job ended: Nomad, the verdict
// recorded and every allocation ended on its client; Slurm, the job gone
// from the queue. (Nomad calls a job "dead" as soon as its allocations are
// told to stop, while their tasks may still be in their checkpoint: the
// records would be read before the tasks wrote their end.)
func (cr *caseRun) waitEnded(ctx context.Context) {
	for ctx.Err() == nil {
		if cr.c.Engine == "slurm" {
			out, err := exec.Command("squeue", "-h", "-j", cr.jobID, "-o", "%T").Output()
			if err != nil || strings.TrimSpace(string(out)) == "" {
				return
			}
		} else {
			cl := cr.nomadClient()
			v, _, err := cl.Variables().Read(nomad.ResultPath(cr.jobID), nil)
			allocs, _, aerr := cl.Jobs().Allocations(cr.jobID, true, nil)
			if err == nil && v != nil && aerr == nil && allEnded(allocs) {
				return
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// allEnded: every allocation reached a terminal status on its client.
func allEnded(allocs []*api.AllocationListStub) bool {
	for _, a := range allocs {
		switch a.ClientStatus {
		case "complete", "failed", "lost":
		default:
			return false
		}
	}
	return true
}

// runControllerKilled: the job is submitted detached, `jobshift controller`
// enforces it; when the controller has stopped the failed attempt (a retry
// is due) it is SIGKILLed and a new one started: exactly one retry must
// follow.
func (cr *caseRun) runControllerKilled(ctx context.Context) {
	t := cr.t
	out, err := cr.cli("run", "-to", cr.c.Engine, "-detach", cr.file).Output()
	if err != nil {
		t.Fatalf("run -detach: %v\n%s", err, out)
	}
	// "submitted nomad job nomad:USER~NAME": the handle's ID
	f := strings.Fields(strings.TrimSpace(string(out)))
	h, err := drivers.ParseHandle(f[len(f)-1], cr.c.Engine, true)
	if err != nil {
		t.Fatalf("run -detach printed %q: %v", out, err)
	}
	cr.jobID = h.ID
	cr.cleanupJob(drivers.Handle{ID: cr.jobID})
	ctl := func(name string) *exec.Cmd {
		cmd := cr.cli("controller", "-every", "2s")
		lf, _ := os.Create(filepath.Join(t.TempDir(), name+".log"))
		cmd.Stdout, cmd.Stderr = lf, lf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			lf.Close()
			if b, _ := os.ReadFile(lf.Name()); t.Failed() {
				t.Logf("%s:\n%s", name, b)
			}
		})
		return cmd
	}
	first := ctl("controller-1")
	cl := cr.nomadClient()
	for ctx.Err() == nil {
		info, _, err := cl.Jobs().Info(cr.jobID, nil)
		if err == nil && info.Stop != nil && *info.Stop {
			break // the verdict fell, the attempt is being stopped
		}
		time.Sleep(100 * time.Millisecond)
	}
	cr.fault = time.Now()
	_ = first.Process.Kill()
	ctl("controller-2")
	cr.waitEnded(ctx)
	cr.verdict = time.Now()
	cr.final = cr.status()
}

// watchDetection records when the engine declares host down (Nomad: the
// client's status "down"; Slurm: the node DOWN), the scheduler's detection
// time the verdict is measured against.
func (cr *caseRun) watchDetection(ctx context.Context, host string) {
	go func() {
		for ctx.Err() == nil {
			down := false
			if cr.c.Engine == "slurm" {
				// slurmctld's own log line (its time, not when a busy
				// slurmctld answers sinfo)
				if at, ok := slurmDown(cr.c.Env["SLURM_CONF"], host, cr.fault); ok {
					cr.mu.Lock()
					cr.detected = at
					cr.mu.Unlock()
					return
				}
			} else if nodes, _, err := cr.nomadClient().Nodes().List(nil); err == nil {
				for _, n := range nodes {
					down = down || n.Name == host && n.Status == "down"
				}
			}
			if down {
				cr.mu.Lock()
				cr.detected = time.Now()
				cr.mu.Unlock()
				return
			}
			time.Sleep(250 * time.Millisecond)
		}
	}()
}

var downRE = regexp.MustCompile(`^\[(\S+)\] error: Nodes (\S+) not responding, setting DOWN`)

// slurmDown finds slurmctld's "setting DOWN" line for host after since.
func slurmDown(conf, host string, since time.Time) (time.Time, bool) {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(conf)), "log", "slurmctld.log"))
	if err != nil {
		return time.Time{}, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		m := downRE.FindStringSubmatch(l)
		if m == nil || !strings.Contains(m[2], strings.TrimRight(host, "0123456789")) {
			continue
		}
		at, err := time.ParseInLocation("2006-01-02T15:04:05.000", m[1], time.Local)
		if err == nil && at.After(since) {
			return at, true
		}
	}
	return time.Time{}, false
}
