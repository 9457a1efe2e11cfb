package nomad_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

// TestControllerServiceResumesAfterRestart runs `jobshift controller` the
// way issue 5 asks for it: as a Nomad service job (raw_exec), with the
// jobs it enforces submitted by plain API registration and no in-job
// finisher (no nomad.helper), so the controller is the only thing that can
// end them. Everything lives in a namespace of its own: the controller
// only lists its namespace, so it cannot act on jobs other tests run on the
// same agent at the same time, and they cannot act on ours.
//
//  1. Job A (examples/pai-v1-ps-worker.json as is): the controller records
//     "succeeded" and stops the parameter servers.
//  2. Job B (jobRetryCount 1): attempt 0 fails (worker 1 exits 1), the
//     controller retries it as a whole; attempt 1's workers wait for a
//     go-file. While they wait, the controller's allocation is stopped;
//     Nomad places a replacement. Only once the new controller watches B
//     does the test create the go-file, so the deciding exits happen
//     strictly after the restart: the verdict must come from the new
//     controller, with one retry in total (none redone after the restart).
//  3. Job C's workers end while no controller runs at all (the controller
//     job is stopped, then registered again): the new controller must
//     judge allocations that ended while nothing watched them, and nothing
//     may have decided C in the meantime.
func TestControllerServiceResumesAfterRestart(t *testing.T) {
	addr := agent.Addr(t)
	root := agent.Client(t)
	t.Setenv("NOMAD_ADDR", addr)
	bin := helper(t)
	sfx := time.Now().UnixNano() % 1e9
	ns := fmt.Sprintf("jsctl-%d", sfx)
	if _, err := root.Namespaces().Register(&api.Namespace{Name: ns, Description: "jobshift controller service test"}, nil); err != nil {
		t.Fatalf("creating namespace %s: %v", ns, err)
	}
	cfg := api.DefaultConfig()
	cfg.Address, cfg.Namespace = addr, ns
	c, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var submitted []string
	t.Cleanup(func() {
		for _, id := range submitted {
			_, _, _ = c.Jobs().Deregister(id, true, nil)
			_, _ = c.Variables().Delete(nomad.ResultPath(id), nil)
		}
		// Purged jobs leave their (terminal) allocations for the GC; the
		// namespace can be deleted once no job remains in it.
		for i := 0; i < 20; i++ {
			if _, err := root.Namespaces().Delete(ns, nil); err == nil {
				return
			}
			time.Sleep(500 * time.Millisecond)
		}
		t.Logf("namespace %s could not be deleted", ns)
	})

	// The controller as a service job. Restarts and reschedules are fast
	// so the test does not wait on Nomad's default back-off.
	ctlID := fmt.Sprintf("jobshift-controller-%d", sfx)
	ctl := &api.Job{
		ID: &ctlID, Name: &ctlID, Namespace: &ns, Type: new("service"), Datacenters: []string{"*"},
		TaskGroups: []*api.TaskGroup{{
			Name:             new("controller"),
			Count:            new(1),
			RestartPolicy:    &api.RestartPolicy{Attempts: new(2), Interval: new(time.Minute), Delay: new(time.Second), Mode: new("fail")},
			ReschedulePolicy: &api.ReschedulePolicy{Unlimited: new(true), Delay: new(5 * time.Second), DelayFunction: new("constant")},
			Tasks: []*api.Task{{
				Name:        "controller",
				Driver:      "raw_exec",
				Config:      map[string]any{"command": bin, "args": []string{"controller", "-every", "5s", "-log-json"}},
				Env:         map[string]string{"NOMAD_ADDR": addr, "NOMAD_NAMESPACE": ns},
				Resources:   &api.Resources{CPU: new(100), MemoryMB: new(128)},
				KillTimeout: new(5 * time.Second),
			}},
		}},
	}
	if _, _, err := c.Jobs().Register(ctl, nil); err != nil {
		t.Fatalf("registering the controller: %v", err)
	}
	submitted = append(submitted, ctlID)
	first := waitControllerAlloc(t, c, ctlID)

	site := site()
	site.Nomad.Namespace = ns
	goFile := filepath.Join(t.TempDir(), "go")

	// Job A: the example, unchanged.
	pa := loadPlan(t, filepath.Join(agent.Repo(), "examples", "pai-v1-ps-worker.json"), site)
	pa.Options["id"] = fmt.Sprintf("ctlsvc-a-%d", sfx)
	// Job B: one whole-job retry; attempt 1's workers wait for goFile.
	pb := loadPlan(t, filepath.Join(agent.Repo(), "examples", "pai-v1-ps-worker.json"), site)
	pb.Options["id"] = fmt.Sprintf("ctlsvc-b-%d", sfx)
	pb.Job.Retry.JobRetryCount = 1
	pb.Job.Role("ps").Command = jobs.Command{Kind: jobs.CommandEval, Script: `exec sleep 3600`}
	pb.Job.Role("worker").Command = jobs.Command{Kind: jobs.CommandEval, Script: `if [ "$NOMAD_META_jobshift_attempt" = 0 ]; then if [ "$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX" = 1 ]; then sleep 1; exit 1; fi; exec sleep 3600; fi; while [ ! -e ` + goFile + ` ]; do sleep 0.5; done`}
	// Job C: no retry; its workers wait for goFileC, which the test
	// creates while no controller runs at all.
	goFileC := goFile + "-c"
	pc := loadPlan(t, filepath.Join(agent.Repo(), "examples", "pai-v1-ps-worker.json"), site)
	pc.Options["id"] = fmt.Sprintf("ctlsvc-c-%d", sfx)
	pc.Job.Role("ps").Command = jobs.Command{Kind: jobs.CommandEval, Script: `exec sleep 3600`}
	pc.Job.Role("worker").Command = jobs.Command{Kind: jobs.CommandEval, Script: `while [ ! -e ` + goFileC + ` ]; do sleep 0.5; done`}
	// B and C changed their jobs after Build: compile them again (the
	// compiled part, policy and launch lines, is computed by Build).
	pb, pc = rebuilt(t, pb), rebuilt(t, pc)
	ida, idb, idc := submitPlain(t, c, pa), submitPlain(t, c, pb), submitPlain(t, c, pc)
	submitted = append(submitted, ida, idb, idc)
	submittedAt := time.Now()

	// 1. Job A ends by the controller's hand.
	va := waitVerdict(t, c, ida, 2*time.Minute)
	if va.Items["phase"] != "succeeded" || va.Items["exitCode"] != "0" || va.Items["attempts"] != "1" {
		t.Fatalf("job A verdict %v, want succeeded, exit code 0, 1 attempt", va.Items)
	}
	waitAllEnded(t, c, ida)
	exitA := lastExit(t, c, ida, "worker")
	t.Logf("job A: verdict recorded %.1fs after submission; after its last worker exited: stopped %.2fs, verdict recorded %.2fs (once every allocation ended)",
		time.Unix(0, va.CreateTime).Sub(submittedAt).Seconds(), stoppedAfter(t, c, ida, exitA), time.Unix(0, va.CreateTime).Sub(exitA).Seconds())
	if psRan := checkPSStopped(t, c, ida); !psRan {
		t.Error("job A: no parameter server ran")
	}

	// 2. Job B: wait for the retry (attempt 1) to be running.
	end := time.Now().Add(90 * time.Second)
	for {
		info, _, err := c.Jobs().Info(idb, nil)
		if err == nil && info.Meta[nomad.MetaAttempt] == "1" && runningMain(t, c, idb, *info.Version) == 4 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("job B: attempt 1 not running within 90s (job: %v)", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if v, _, err := c.Variables().Read(nomad.ResultPath(idb), nil); err == nil && v != nil {
		t.Fatalf("job B decided before its second attempt ended: %v", v.Items)
	}

	// 3. Stop the controller's allocation; Nomad places a replacement,
	// which must pick job B up where the first one left it.
	stoppedAt := time.Now()
	if _, err := c.Allocations().Stop(first, nil); err != nil {
		t.Fatalf("stopping the controller allocation: %v", err)
	}
	second := waitControllerAlloc(t, c, ctlID, first.ID)
	var resumedAt time.Time
	for end := time.Now().Add(60 * time.Second); resumedAt.IsZero(); {
		if watchingJob(controllerLog(t, c, second), idb) {
			resumedAt = time.Now()
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the restarted controller does not watch job B within 60s; its log:\n%s", controllerLog(t, c, second))
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("controller restart: replacement allocation watching job B %.1fs after the stop", resumedAt.Sub(stoppedAt).Seconds())
	if err := os.WriteFile(goFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	released := time.Now()

	vb := waitVerdict(t, c, idb, 90*time.Second)
	if vb.Items["phase"] != "succeeded" || vb.Items["exitCode"] != "0" || vb.Items["attempts"] != "2" {
		t.Fatalf("job B verdict %v, want succeeded, exit code 0, 2 attempts", vb.Items)
	}
	waitAllEnded(t, c, idb)
	checkPSStopped(t, c, idb)
	exitB := lastExit(t, c, idb, "worker")
	t.Logf("job B: verdict recorded %.1fs after the workers were released; after the last worker exited: stopped %.2fs, verdict recorded %.2fs",
		time.Unix(0, vb.CreateTime).Sub(released).Seconds(), stoppedAfter(t, c, idb, exitB), time.Unix(0, vb.CreateTime).Sub(exitB).Seconds())

	// Nothing retried twice: B was registered by us and once by a retry,
	// its meta says attempt 1 / 1 counted retry.
	versions, _, _, err := c.Jobs().Versions(idb, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for _, v := range versions {
		if v.Stop == nil || !*v.Stop {
			runs++
		}
	}
	if runs != 2 {
		t.Errorf("job B was registered to run %d times, want 2 (submission + one retry)", runs)
	}
	if latest := versions[0]; latest.Meta[nomad.MetaAttempt] != "1" || latest.Meta["jobshift_retries"] != "1" {
		t.Errorf("job B meta attempt=%q retries=%q, want 1 and 1", latest.Meta[nomad.MetaAttempt], latest.Meta["jobshift_retries"])
	}
	// Who did what: the first controller retried B, the second decided it.
	log1, log2 := controllerLog(t, c, first), controllerLog(t, c, second)
	if n := logCount(log1+log2, idb, "retrying"); n != 1 {
		t.Errorf("job B retried %d times by the controllers, want 1:\n--- first\n%s--- second\n%s", n, log1, log2)
	}
	if logCount(log2, idb, "succeeded") == 0 {
		t.Errorf("the restarted controller did not decide job B; its log:\n%s", log2)
	}
	if logCount(log1, idb, "succeeded") > 0 {
		t.Errorf("the stopped controller decided job B; its log:\n%s", log1)
	}

	// 4. Job C's rule fires while no controller runs: stop the controller
	// job, let C's workers finish, start the controller again. It must
	// judge the allocations that ended while it was away.
	if _, _, err := c.Jobs().Deregister(ctlID, false, nil); err != nil {
		t.Fatal(err)
	}
	waitNoController(t, c, ctlID)
	if err := os.WriteFile(goFileC, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(60 * time.Second); deadMain(t, c, idc, "worker") < 2; time.Sleep(250 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("job C: workers did not exit within 60s")
		}
	}
	time.Sleep(time.Second) // let a wrongly surviving decider show itself
	if v, _, err := c.Variables().Read(nomad.ResultPath(idc), nil); err == nil && v != nil {
		t.Fatalf("job C decided with no controller running: %v", v.Items)
	}
	if info, _, err := c.Jobs().Info(idc, nil); err != nil || info.Stop != nil && *info.Stop {
		t.Fatalf("job C stopped with no controller running (%v)", err)
	}
	restartedAt := time.Now()
	if _, _, err := c.Jobs().Register(ctl, nil); err != nil {
		t.Fatalf("registering the controller again: %v", err)
	}
	third := waitControllerAlloc(t, c, ctlID, first.ID, second.ID)
	vc := waitVerdict(t, c, idc, 60*time.Second)
	if vc.Items["phase"] != "succeeded" || vc.Items["exitCode"] != "0" || vc.Items["attempts"] != "1" {
		t.Fatalf("job C verdict %v, want succeeded, exit code 0, 1 attempt", vc.Items)
	}
	waitAllEnded(t, c, idc)
	checkPSStopped(t, c, idc)
	if log3 := controllerLog(t, c, third); logCount(log3, idc, "succeeded") == 0 {
		t.Errorf("the controller started again did not decide job C; its log:\n%s", log3)
	}
	t.Logf("job C: verdict recorded %.1fs after the controller job was registered again", time.Unix(0, vc.CreateTime).Sub(restartedAt).Seconds())
}

// waitNoController waits until no allocation of the controller job runs.
func waitNoController(t *testing.T, c *api.Client, id string) {
	t.Helper()
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		allocs, _, err := c.Jobs().Allocations(id, true, nil)
		if err != nil {
			continue
		}
		live := 0
		for _, a := range allocs {
			if a.ClientStatus == "running" || a.ClientStatus == "pending" {
				live++
			}
		}
		if live == 0 {
			return
		}
	}
	t.Fatal("the controller job's allocations still run 60s after it was stopped")
}

// deadMain counts allocations of role whose main task has ended.
func deadMain(t *testing.T, c *api.Client, id, role string) int {
	allocs, _, err := c.Jobs().Allocations(id, true, nil)
	if err != nil {
		return 0
	}
	n := 0
	for _, a := range allocs {
		if ts := a.TaskStates[nomad.MainTask]; a.TaskGroup == role && ts != nil && ts.State == "dead" {
			n++
		}
	}
	return n
}

// submitPlain renders p for Nomad (no helper: no in-job finisher) and
// registers it with the plain API, as `nomad job run` would.
func submitPlain(t *testing.T, c *api.Client, p *translate.Plan) string {
	t.Helper()
	p.Options[nomad.OptWorkDir] = agent.Repo()
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
	if err != nil {
		t.Fatal(err)
	}
	art, err := d.Render(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	job, err := c.Jobs().ParseHCL(string(art.Files[0].Data), true)
	if err != nil {
		t.Fatalf("parsing the rendered job: %v", err)
	}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatalf("registering %s: %v", *job.ID, err)
	}
	return *job.ID
}

// waitControllerAlloc waits for a running allocation of the controller
// job that is none of not.
func waitControllerAlloc(t *testing.T, c *api.Client, id string, not ...string) *api.Allocation {
	t.Helper()
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		allocs, _, err := c.Jobs().Allocations(id, false, nil)
		if err != nil {
			continue
		}
		for _, a := range allocs {
			if !slices.Contains(not, a.ID) && a.ClientStatus == "running" && a.TaskStates["controller"] != nil && a.TaskStates["controller"].State == "running" {
				full, _, err := c.Allocations().Info(a.ID, nil)
				if err == nil {
					return full
				}
			}
		}
	}
	t.Fatalf("no running controller allocation (other than %q) within 60s", not)
	return nil
}

// logCount counts the controller's JSON log records about job id whose
// message starts with prefix ("retrying", "succeeded").
func logCount(log, id, prefix string) int {
	n := 0
	for _, l := range strings.Split(log, "\n") {
		var rec struct {
			Message string `json:"@message"`
			Job     string `json:"job"`
		}
		if json.Unmarshal([]byte(l), &rec) == nil && rec.Job == id && strings.HasPrefix(rec.Message, prefix) {
			n++
		}
	}
	return n
}

// watchingJob reports whether the controller's JSON log (one go-hclog
// object per line) has the record of it watching job id.
func watchingJob(log, id string) bool {
	for _, l := range strings.Split(log, "\n") {
		var rec struct {
			Message string `json:"@message"`
			Job     string `json:"job"`
		}
		if json.Unmarshal([]byte(l), &rec) == nil && rec.Message == "watching" && rec.Job == id {
			return true
		}
	}
	return false
}

func controllerLog(t *testing.T, c *api.Client, a *api.Allocation) string {
	t.Helper()
	rc, err := c.AllocFS().Cat(a, "alloc/logs/controller.stdout.0", nil)
	if err != nil {
		return fmt.Sprintf("(log unreadable: %v)\n", err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	return string(b)
}

func waitVerdict(t *testing.T, c *api.Client, id string, d time.Duration) *api.Variable {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		if v, _, err := c.Variables().Read(nomad.ResultPath(id), nil); err == nil && v != nil {
			return v
		}
	}
	t.Fatalf("%s: no verdict recorded within %s", id, d)
	return nil
}

// waitAllEnded: after the verdict the job is stopped; every allocation
// must reach a terminal client status.
func waitAllEnded(t *testing.T, c *api.Client, id string) {
	t.Helper()
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		info, _, err := c.Jobs().Info(id, nil)
		if err != nil || info.Stop == nil || !*info.Stop {
			continue
		}
		allocs, _, err := c.Jobs().Allocations(id, true, nil)
		if err != nil {
			continue
		}
		live := 0
		for _, a := range allocs {
			if a.ClientStatus == "running" || a.ClientStatus == "pending" {
				live++
			}
		}
		if live == 0 {
			return
		}
	}
	t.Fatalf("%s: not stopped, or allocations still running, 60s after the verdict", id)
}

// checkPSStopped: the parameter servers of the last attempt never exit by
// themselves; they must have been killed (by the controller's stop), not
// have failed. It reports whether any PS ran.
func checkPSStopped(t *testing.T, c *api.Client, id string) bool {
	t.Helper()
	allocs, _, err := c.Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	latest := uint64(0)
	for _, a := range allocs {
		latest = max(latest, a.JobVersion)
	}
	ran := false
	for _, a := range allocs {
		if a.JobVersion != latest || a.TaskGroup != "ps" {
			continue
		}
		ran = true
		if a.DesiredStatus != "stop" {
			t.Errorf("%s: desired status %s, want stop", a.Name, a.DesiredStatus)
		}
		if ts := a.TaskStates[nomad.MainTask]; ts == nil || ts.State != "dead" {
			t.Errorf("%s: main task not dead", a.Name)
		}
	}
	return ran
}

// runningMain counts allocations of version whose main task runs.
func runningMain(t *testing.T, c *api.Client, id string, version uint64) int {
	allocs, _, err := c.Jobs().Allocations(id, true, nil)
	if err != nil {
		return 0
	}
	n := 0
	for _, a := range allocs {
		if ts := a.TaskStates[nomad.MainTask]; a.JobVersion == version && ts != nil && ts.State == "running" {
			n++
		}
	}
	return n
}

// lastExit is when the last main task of role ended in the job's latest
// attempt (the client's clock; client and server are one host here).
func lastExit(t *testing.T, c *api.Client, id, role string) time.Time {
	t.Helper()
	allocs, _, err := c.Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	latest := uint64(0)
	for _, a := range allocs {
		latest = max(latest, a.JobVersion)
	}
	var last time.Time
	for _, a := range allocs {
		if a.TaskGroup != role || a.JobVersion != latest {
			continue
		}
		if ts := a.TaskStates[nomad.MainTask]; ts != nil && ts.FinishedAt.After(last) {
			last = ts.FinishedAt
		}
	}
	return last
}

// stoppedAfter: seconds from exit to the controller's stop of the job (the
// SubmitTime of the job's latest version, the Stop = true one).
func stoppedAfter(t *testing.T, c *api.Client, id string, exit time.Time) float64 {
	t.Helper()
	info, _, err := c.Jobs().Info(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	return time.Unix(0, *info.SubmitTime).Sub(exit).Seconds()
}

// rebuilt builds p's job again, so that what Build compiles (the completion
// policy in the job's meta, the launch lines) follows changes a test made
// to p.Job after loading it.
func rebuilt(t *testing.T, p *translate.Plan) *translate.Plan {
	t.Helper()
	np, diags := translate.Build(p.Job, p.Site, p.Contracts, p.User)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	np.Options = p.Options
	return np
}
