package nomad

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad/jobhcl"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// These tests need a real Nomad agent (integration/nomad/agent starts or
// reuses the dev agent); they use the test-only contract fixture, so they
// check Render, the rendezvous and the watcher, not the contract's text.

func TestMain(m *testing.M) {
	code := m.Run()
	agent.StopIfStarted()
	os.Exit(code)
}

func jsonRoundTrip(t *testing.T, j *api.Job) *api.Job {
	t.Helper()
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	var out api.Job
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// TestAgentHCLParsesBack: the HCL parses (Nomad's jobspec2, through
// /v1/jobs/parse) to the same job as the api.Job it was written from, the
// job validates, and the HCL is a fixed point of `nomad fmt`.
func TestAgentHCLParsesBack(t *testing.T) {
	c := agent.Client(t)
	cases := map[string]*translate.Plan{
		"ps-worker-raw_exec": plan(psWorker("mesh", `python3 mesh.py --ps_hosts=$PAI_TASK_ROLE_ps_HOST_LIST`), rawExecSite()),
		"ps-worker-docker":   plan(psWorker("mesh", `python3 mesh.py`), nil),
		"hostile":            plan(psWorker("x y/z", strings.Join(hostileStrings, " ")), rawExecSite()),
		// static ports (written as port blocks with static) and a job
		// constraint; the real contract renders it
		"leinao-raw_exec": plan(leinaoJob(), rawExecSite()),
	}
	for name, p := range cases {
		var cc Contract = fixtureContract{}
		if name == "leinao-raw_exec" {
			cc = nil
		}
		job, diags := BuildJob(p, cc)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		src, err := jobhcl.Marshal(job)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := c.Jobs().ParseHCLOpts(&api.JobsParseRequest{JobHCL: string(src), Canonicalize: false})
		if err != nil {
			t.Fatalf("%s: parse: %v\n%s", name, err, src)
		}
		// jobspec2 fills some defaults even uncanonicalised (template
		// splay, error_on_missing_key); compare both canonicalised, as
		// the agent would register them.
		want, got := jsonRoundTrip(t, job), jsonRoundTrip(t, parsed)
		want.Canonicalize()
		got.Canonicalize()
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: parsed HCL differs (-rendered +parsed):\n%s", name, diff)
		}
		resp, _, err := c.Jobs().Validate(job, nil)
		if err != nil || len(resp.ValidationErrors) > 0 || resp.Error != "" {
			t.Errorf("%s: validate: %v %v %s", name, err, resp.ValidationErrors, resp.Error)
		}
		f := filepath.Join(t.TempDir(), "job.nomad.hcl")
		if err := os.WriteFile(f, src, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := execCombined(agent.Binary(), "fmt", "-check", f); err != nil {
			t.Errorf("%s: nomad fmt -check: %v\n%s", name, err, out)
		}
	}
}

var hostileStrings = []string{`${HOME}`, `${NOMAD_ALLOC_INDEX}`, `$${x}`, `%{ if true }x%{ endif }`, `{{ env "HOME" }}`,
	`}}{{`, `"q"`, `back\slash`, `'single'`, `$HOME`, "EOT", `<% $secrets.x %>`, `${`, "ünï ☃"}

// TestAgentHostileBytesReachTheProcess: argv and env values full of
// HCL, Nomad and consul-template syntax reach the process byte for byte.
func TestAgentHostileBytesReachTheProcess(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	dir := t.TempDir()
	out := filepath.Join(dir, "seen.json")
	script := `import json,os,sys; json.dump({"argv":sys.argv[1:],"env":{k:v for k,v in os.environ.items() if k.startswith("H_")}}, open(sys.argv[1],"w"))`
	args := append([]string{"-c", script, out}, hostileStrings...)
	j := &jobs.Job{Name: "hostile-" + fmt.Sprint(time.Now().UnixNano()), Source: jobs.Source{Format: jobs.FormatTFJob},
		Completion: jobs.Completion{Kind: jobs.CompletionTF},
		Roles: []*jobs.Role{{Name: "worker", ReplicaType: "worker", Instances: 1,
			Command:   jobs.Command{Kind: jobs.CommandArgv, Command: []string{"python3"}, Args: args},
			Resources: jobs.Resources{CPUMilli: 500, MemoryMiB: 128}}}}
	wantEnv := map[string]string{}
	for i, h := range hostileStrings {
		name := fmt.Sprintf("H_%d", i)
		j.Roles[0].Env = append(j.Roles[0].Env, jobs.EnvVar{Name: name, Value: h})
		wantEnv[name] = h
	}
	res := runJob(t, plan(j, rawExecSite()))
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("job %s: %+v", j.Name, res)
	}
	var seen struct {
		Argv []string
		Env  map[string]string
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &seen); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(append([]string{out}, hostileStrings...), seen.Argv); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantEnv, seen.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
}

// runJob submits p with the fixture contract and watches it to the end.
func runJob(t *testing.T, p *translate.Plan) *drivers.Result {
	t.Helper()
	d, _ := New(drivers.Config{Site: p.Site}, false)
	d.WithContract(fixtureContract{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p.Options[OptWatched] = "true" // watched below, as jobshift run does
	h, err := d.Submit(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, err := d.Client(); err == nil {
			_, _, _ = c.Jobs().Deregister(h.ID, true, nil)
		}
	})
	events, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	var final *drivers.Result
	for e := range events {
		if testing.Verbose() {
			ref := ""
			if e.Task != nil {
				ref = fmt.Sprintf("%s-%d", e.Task.Role, e.Task.Index)
			}
			t.Logf("event a%d %s %s %d %s", e.Attempt, ref, e.State, e.ExitCode, e.Message)
		}
		if e.Final != nil {
			final = e.Final
		}
	}
	if final == nil {
		t.Fatalf("job %s: no result (timeout?)", h.ID)
	}
	return final
}

// TestAgentPSWorkerRendezvousAndCompletion: 2 PS that never exit and 2
// workers; every worker sees all peers in index order before it starts,
// the job succeeds when the workers do, and the PS are stopped.
func TestAgentPSWorkerRendezvousAndCompletion(t *testing.T) {
	c := agent.Client(t)
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	dir := t.TempDir()
	// Workers live 2 s, like real peers that talk to each other: a task
	// that ends before its peers read the registry is gone from it (the
	// hazard of spec/nomad.md §2, documented in barrier.go).
	cmd := fmt.Sprintf(`if [ "$JS_ROLE" = ps ]; then exec sleep 3600; fi; env | grep '^JS_' | sort > %s/$JS_ROLE-$JS_INDEX.env; sleep 2`, dir)
	j := psWorker(fmt.Sprintf("psw-%d", time.Now().UnixNano()), cmd)
	two := 2
	j.Roles[1].MinSucceeded = &two
	p := plan(j, rawExecSite())
	res := runJob(t, p)
	if res.Phase != completion.PhaseSucceeded || res.ExitCode != 0 {
		t.Fatalf("result %+v", res)
	}
	id := JobIDFor(p)
	allocs, _, err := c.Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	hosts := map[string][]string{"ps": make([]string, 2), "worker": make([]string, 2)}
	for _, a := range allocs {
		full, _, err := c.Allocations().Info(a.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		idx, _ := allocIndex(a.Name)
		p := full.AllocatedResources.Shared.Ports[0]
		hosts[a.TaskGroup][idx] = fmt.Sprintf("%s:%d", p.HostIP, p.Value)
		if a.TaskGroup == "ps" {
			if a.DesiredStatus != "stop" || a.TaskStates[MainTask].State != "dead" {
				t.Errorf("ps %s: desired %s, main %s: want stopped", a.Name, a.DesiredStatus, a.TaskStates[MainTask].State)
			}
		}
	}
	for i := 0; i < 2; i++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("worker-%d.env", i)))
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("JS_HOSTS_PS=%s\nJS_HOSTS_WORKER=%s\nJS_INDEX=%d\nJS_ROLE=worker\n",
			strings.Join(hosts["ps"], ","), strings.Join(hosts["worker"], ","), i)
		if diff := cmp.Diff(want, string(b)); diff != "" {
			t.Errorf("worker-%d env (-want +got):\n%s", i, diff)
		}
	}
}

// TestAgentFailingWorkerFailsJob: a worker exiting 3 fails a PAI job
// (minFailed 1) with its exit code, and the PS are stopped.
func TestAgentFailingWorkerFailsJob(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	cmd := `if [ "$JS_ROLE" = ps ]; then exec sleep 3600; fi; if [ "$JS_INDEX" = 1 ]; then exit 3; fi; sleep 1`
	j := psWorker(fmt.Sprintf("fail-%d", time.Now().UnixNano()), cmd)
	res := runJob(t, plan(j, rawExecSite()))
	if res.Phase != completion.PhaseFailed || res.ExitCode != 3 || res.Attempts != 1 {
		t.Fatalf("result %+v, want failed with exit code 3 after 1 attempt", res)
	}
}

// TestAgentUnplaceableReportedBeforeSubmit: more GPUs than the node has.
func TestAgentUnplaceableReportedBeforeSubmit(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	j := psWorker(fmt.Sprintf("gpu-%d", time.Now().UnixNano()), "true")
	j.Roles[1].Resources.GPU = 64
	d, _ := New(drivers.Config{Site: rawExecSite()}, false)
	_, err := d.WithContract(fixtureContract{}).Submit(context.Background(), plan(j, rawExecSite()))
	if err == nil || !strings.Contains(err.Error(), "cannot be placed") || !strings.Contains(err.Error(), `group "worker"`) {
		t.Fatalf("want a placement error naming group worker, got %v", err)
	}
	c := agent.Client(t)
	if _, _, err := c.Jobs().Info(JobIDFor(plan(j, nil)), nil); err == nil {
		t.Error("the job was registered although it cannot be placed")
	}
}

// TestAgentFakeGPUsDisjoint: two workers with 2 fake GPUs each get disjoint
// devices, and raw_exec processes see them as CUDA_VISIBLE_DEVICES.
func TestAgentFakeGPUsDisjoint(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	dir := t.TempDir()
	cmd := fmt.Sprintf(`if [ "$JS_ROLE" = ps ]; then exec sleep 3600; fi; echo "$NVIDIA_VISIBLE_DEVICES $CUDA_VISIBLE_DEVICES" > %s/$JS_INDEX; sleep 2`, dir)
	j := psWorker(fmt.Sprintf("gpu-%d", time.Now().UnixNano()), cmd)
	two := 2
	j.Roles[1].MinSucceeded = &two
	j.Roles[1].Resources.GPU = 2
	if res := runJob(t, plan(j, rawExecSite())); res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	seen := map[string]int{}
	for i := 0; i < 2; i++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprint(i)))
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(b))
		if len(f) != 2 || f[0] != f[1] {
			t.Fatalf("worker-%d: NVIDIA_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES = %q, want equal", i, b)
		}
		ids := strings.Split(f[0], ",")
		if len(ids) != 2 {
			t.Errorf("worker-%d got %v, want 2 GPUs", i, ids)
		}
		for _, id := range ids {
			seen[id]++
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("GPU %s given to %d workers", id, n)
		}
	}
}

// TestAgentGangTimeout: a job submitted by plain registration (no plan)
// that only partly fits is stopped by the watcher after the gang timeout,
// so its placed half does not hold GPUs forever.
func TestAgentGangTimeout(t *testing.T) {
	c := agent.Client(t)
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	site := rawExecSite()
	site.Nomad.BarrierTimeout = "4s"
	hog := psWorker(fmt.Sprintf("hog-%d", time.Now().UnixNano()), "exec sleep 3600")
	hog.Roles = hog.Roles[:1]
	hog.Roles[0].Instances = 1
	hog.Roles[0].Resources.GPU = 3
	hogJob, diags := BuildJob(plan(hog, site), fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if _, _, err := c.Jobs().Register(hogJob, nil); err != nil {
		t.Fatal(err)
	}
	defer c.Jobs().Deregister(*hogJob.ID, true, nil)
	j := psWorker(fmt.Sprintf("gang-%d", time.Now().UnixNano()), "exec sleep 3600")
	j.Roles[1].Resources.GPU = 1 // 2 workers, 1 free GPU
	job, diags := BuildJob(plan(j, site), fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	time.Sleep(time.Second) // let the hog be placed first
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	defer c.Jobs().Deregister(*job.ID, true, nil)
	d, _ := New(drivers.Config{Site: site}, false)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ev, err := d.Watch(ctx, drivers.Handle{ID: *job.ID})
	if err != nil {
		t.Fatal(err)
	}
	var final *drivers.Result
	for e := range ev {
		t.Logf("event: %+v", e)
		if e.Final != nil {
			final = e.Final
		}
	}
	if final == nil || final.Phase != completion.PhaseFailed ||
		!(strings.Contains(final.Reason, "gang timeout") || strings.Contains(final.Reason, "rendezvous")) {
		t.Fatalf("want a failed job stopped by the gang (or barrier) timeout, got %+v", final)
	}
	t.Logf("reason: %s", final.Reason)
	info, _, _ := c.Jobs().Info(*job.ID, nil)
	if info == nil || info.Stop == nil || !*info.Stop {
		t.Error("the job was not stopped")
	}
}

// TestAgentSecretsNeverInTheJob: PAI v2 secrets reach the command through
// the job's Nomad Variable; the rendered job (HCL, JSON) never holds them.
func TestAgentSecretsNeverInTheJob(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	dir := t.TempDir()
	const secret = "s3cr3t-${HOME}-{{x}}"
	j := psWorker(fmt.Sprintf("sec-%d", time.Now().UnixNano()), "")
	j.Roles = j.Roles[1:]
	j.Roles[0].Instances = 1
	j.Roles[0].Command = jobs.Command{Kind: jobs.CommandBashScript,
		Script: "printf '%s' '<% $secrets.db.password %>' > " + dir + "/seen"}
	j.Secrets = map[string]any{"db": map[string]any{"password": secret}}
	p := plan(j, rawExecSite())
	for _, asJSON := range []bool{false, true} {
		if b := render(t, asJSON, p); strings.Contains(string(b), "s3cr3t") {
			t.Fatalf("the rendered job contains the secret:\n%s", b)
		}
	}
	if res := runJob(t, p); res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	got, err := os.ReadFile(filepath.Join(dir, "seen"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != secret {
		t.Errorf("the task saw %q, want %q", got, secret)
	}
	c := agent.Client(t)
	_, _ = c.Variables().Delete(VariablePath(JobIDFor(p)), nil)
}

// TestAgentWholeJobRetry: jobRetryCount 1 and a worker that always fails:
// the job is run twice (re-registered as a new version), then fails.
func TestAgentWholeJobRetry(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	cmd := `if [ "$JS_ROLE" = ps ]; then exec sleep 3600; fi; if [ "$JS_INDEX" = 1 ]; then exit 1; fi; sleep 2`
	j := psWorker(fmt.Sprintf("retry-%d", time.Now().UnixNano()), cmd)
	j.Retry.JobRetryCount = 1
	res := runJob(t, plan(j, rawExecSite()))
	if res.Phase != completion.PhaseFailed || res.Attempts != 2 || res.ExitCode != 1 {
		t.Fatalf("result %+v, want failed with exit code 1 after 2 attempts", res)
	}
}
